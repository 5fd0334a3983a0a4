package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.lucene.LuceneMemorySearch;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Folders, their files and the files' passages on one backend: each its user's, a file's processing recorded step by
 * step, passages searchable in {@link SearchDomain#FILES} by their user and folder only, and a delete taking files,
 * passages and their index documents with it. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class FolderConformance {
    private MemorySearch search;

    /** The open store under test. */
    protected abstract MemoryStore store();

    @BeforeEach
    void openSearch() {
        search = LuceneMemorySearch.builder(store(), new WordHashEmbedder()).backgroundInterval(Duration.ZERO).build();
    }

    @AfterEach
    void closeSearch() {
        search.close();
    }

    private FolderFile uploaded(String user, Folder folder, String name, String text, List<String> chunks) {
        FolderStore folders = store().folders();
        FolderFile f = folders.addFile(user, folder.id(), name, name, "text/plain", text.length());
        folders.status(user, f.id(), FileStatus.PARSING);
        folders.text(user, f.id(), text, chunks.size());
        folders.addPassages(user, f.id(), chunks);
        folders.embedded(user, f.id(), chunks.size());
        return folders.status(user, f.id(), FileStatus.COMPLETED);
    }

    private List<String> searchFiles(String user, String query, Folder... in) {
        return search.search(SearchRequest.builder(Scope.of(user, "any-agent"), query).domains(SearchDomain.FILES)
                .folders(java.util.Arrays.stream(in).map(Folder::id).toList()).build()).stream().map(SearchHit::text).toList();
    }

    @Test
    void aFolderIsCreatedFoundByIdAndNameRenamedAndItsUsersAlone() {
        FolderStore folders = store().folders();
        Folder docs = folders.create("ana", "docs", "Manuals", "Cite the page", Metadata.of(Map.of("team", "ops")));
        assertThat(docs.id()).startsWith(Folder.ID_PREFIX);
        assertThat(folders.get("ana", docs.id())).contains(docs);
        assertThat(folders.byName("ana", "docs")).contains(docs);
        assertThat(folders.get("ben", docs.id())).isEmpty();
        assertThat(folders.list("ben")).isEmpty();

        Folder renamed = folders.update("ana", docs.withName("manuals").withDescription("All the manuals"));
        assertThat(folders.get("ana", docs.id())).contains(renamed);
        assertThat(renamed.name()).isEqualTo("manuals");
        assertThat(renamed.instructions()).isEqualTo("Cite the page");
        assertThat(renamed.metadata().get("team")).contains("ops");
        assertThat(folders.list("ana")).containsExactly(renamed);
    }

    @Test
    void aSecondFolderOfTheSameNameIsRefusedAndNothingChanges() {
        FolderStore folders = store().folders();
        Folder docs = folders.create("ana", "docs", "", "", Metadata.empty());
        Folder other = folders.create("ana", "other", "", "", Metadata.empty());
        assertThatThrownBy(() -> folders.create("ana", "docs", "", "", Metadata.empty()))
                .isInstanceOf(DuplicateException.class).hasMessageContaining("'docs' already exists");
        assertThatThrownBy(() -> folders.update("ana", other.withName("docs"))).isInstanceOf(DuplicateException.class);
        assertThat(folders.list("ana")).containsExactly(docs, other);
        assertThat(folders.create("ben", "docs", "", "", Metadata.empty()).userId()).isEqualTo("ben");
    }

    @Test
    void anotherUsersFolderOrFileIsNotFoundAndUnchanged() {
        FolderStore folders = store().folders();
        Folder docs = folders.create("ana", "docs", "", "", Metadata.empty());
        FolderFile f = uploaded("ana", docs, "a.txt", "Alpha text.", List.of("Alpha text."));
        assertThatThrownBy(() -> folders.addFile("ben", docs.id(), "b.txt", "b.txt", "text/plain", 1))
                .isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> folders.deleteFile("ben", f.id())).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> folders.delete("ben", docs.id())).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> folders.passages("ben", docs.id(), 0, 10)).isInstanceOf(NotFoundException.class);
        assertThat(folders.file("ben", f.id())).isEmpty();
        assertThat(folders.files("ana", docs.id())).containsExactly(f);
        assertThat(folders.countPassages("ana", docs.id())).isEqualTo(1);
    }

    @Test
    void aFilesProcessingIsRecordedStepByStepWithItsTextAndPassagesInOrder() {
        FolderStore folders = store().folders();
        Folder docs = folders.create("ana", "docs", "", "", Metadata.empty());
        FolderFile pending = folders.addFile("ana", docs.id(), "guide.md", "guide.md", "text/markdown", 42);
        assertThat(pending.status()).isEqualTo(FileStatus.PENDING);
        assertThat(pending.text()).isEmpty();
        FolderFile withText = folders.text("ana", pending.id(), "# Guide\n\nOne. Two. Three.", 3);
        assertThat(withText.status()).isEqualTo(FileStatus.EMBEDDING);
        assertThat(withText.totalChunks()).isEqualTo(3);
        folders.addPassages("ana", pending.id(), List.of("One.", "Two."));
        folders.addPassages("ana", pending.id(), List.of("Three."));
        assertThat(folders.embedded("ana", pending.id(), 3).chunksEmbedded()).isEqualTo(3);
        FolderFile done = folders.status("ana", pending.id(), FileStatus.COMPLETED);
        assertThat(folders.file("ana", pending.id())).contains(done);
        assertThat(done.text()).isEqualTo("# Guide\n\nOne. Two. Three.");
        assertThat(folders.passages("ana", docs.id(), 0, 10)).extracting(FilePassage::text).containsExactly("One.", "Two.", "Three.");
        assertThat(folders.passages("ana", docs.id(), 1, 1)).extracting(FilePassage::position).containsExactly(1);

        assertThatThrownBy(() -> folders.addPassages("ana", pending.id(), List.of("Four.")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 chunks");
        assertThatThrownBy(() -> folders.embedded("ana", pending.id(), 4)).isInstanceOf(IllegalArgumentException.class);
        assertThat(folders.countPassages("ana", docs.id())).isEqualTo(3);
        FolderFile failed = folders.fail("ana", pending.id(), "the embedding model stopped");
        assertThat(failed.status()).isEqualTo(FileStatus.ERROR);
        assertThat(failed.error()).isEqualTo("the embedding model stopped");
        assertThatThrownBy(() -> folders.fail("ana", pending.id(), " ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void passagesAreSearchableInTheirFolderByTheirUserOnly() {
        FolderStore folders = store().folders();
        Folder docs = folders.create("ana", "docs", "", "", Metadata.empty());
        Folder other = folders.create("ana", "other", "", "", Metadata.empty());
        Folder bens = folders.create("ben", "docs", "", "", Metadata.empty());
        uploaded("ana", docs, "a.txt", "x", List.of("The boiler pressure must stay below two bar.", "Unrelated words here."));
        uploaded("ana", other, "b.txt", "x", List.of("The boiler room key hangs by the door."));
        uploaded("ben", bens, "c.txt", "x", List.of("Ben's boiler manual says three bar."));

        assertThat(searchFiles("ana", "boiler pressure", docs)).first().asString().contains("two bar");
        assertThat(searchFiles("ana", "boiler", docs)).noneMatch(t -> t.contains("key") || t.contains("Ben"));
        assertThat(searchFiles("ana", "boiler", docs, other)).anyMatch(t -> t.contains("key")).noneMatch(t -> t.contains("Ben"));
        assertThat(searchFiles("ben", "boiler", docs)).isEmpty(); // ana's folder id, asked by ben
        assertThat(search.search(SearchRequest.builder(Scope.of("ana", "any-agent"), "boiler").build())).isEmpty();
        assertThatThrownBy(() -> SearchRequest.builder(Scope.of("ana", "a"), "boiler").domains(SearchDomain.FILES).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names the folders");
    }

    @Test
    void deletingAFileOrAFolderTakesItsPassagesOutOfStoreAndSearch() {
        FolderStore folders = store().folders();
        Folder docs = folders.create("ana", "docs", "", "", Metadata.empty());
        FolderFile a = uploaded("ana", docs, "a.txt", "x", List.of("Alpha turbines spin fast."));
        uploaded("ana", docs, "b.txt", "x", List.of("Beta turbines spin slowly."));
        assertThat(searchFiles("ana", "turbines", docs)).hasSize(2);

        folders.deleteFile("ana", a.id());
        assertThat(folders.file("ana", a.id())).isEmpty();
        assertThat(searchFiles("ana", "turbines", docs)).containsExactly("Beta turbines spin slowly.");
        assertThat(folders.countPassages("ana", docs.id())).isEqualTo(1);

        folders.delete("ana", docs.id());
        assertThat(folders.get("ana", docs.id())).isEmpty();
        assertThat(searchFiles("ana", "turbines", docs)).isEmpty();
        assertThat(store().usage("ana").storedBytes()).isZero();
    }

    @Test
    void aFilesTextCountsTowardsTheStoredBytesQuotaAndAnOverQuotaTextIsRefusedUnstored() {
        MemoryStore limited = store().withQuotas(UserQuotas.defaults().withStoredBytes(100));
        Folder docs = limited.folders().create("ana", "docs", "", "", Metadata.empty());
        FolderFile f = limited.folders().addFile("ana", docs.id(), "a.txt", "a.txt", "text/plain", 200);
        assertThatThrownBy(() -> limited.folders().text("ana", f.id(), "x".repeat(200), 1))
                .isInstanceOf(QuotaExceededException.class).hasMessageContaining("past the quota of 100 bytes");
        assertThat(limited.folders().file("ana", f.id())).hasValueSatisfying(g -> {
            assertThat(g.text()).isEmpty();
            assertThat(g.status()).isEqualTo(FileStatus.PENDING);
        });
        limited.folders().text("ana", f.id(), "y".repeat(60), 1);
        assertThat(limited.usage("ana").storedBytes()).isEqualTo(60);
    }
}
