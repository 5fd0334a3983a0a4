package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Folders attached to agents on one backend: attached only to the user's own agents, each file open or closed with its
 * window, the least recently used open file closed first, and detaching, deleting a file, a folder or the agent taking
 * the agent's file states with them. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class AgentFolderConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope BEN = Scope.of("ben", "helper");
    private static final FileLimits TWO_OPEN = new FileLimits(2, 1_000);

    /** The open store under test. */
    protected abstract MemoryStore store();

    @BeforeEach
    void agents() {
        for (Scope s : List.of(ANA, ANA_COACH, BEN)) {
            store().agents().create(s, s.agentId(), "{}");
        }
    }

    private FolderFile file(String user, Folder folder, String name, String text) {
        FolderStore folders = store().folders();
        FolderFile f = folders.addFile(user, folder.id(), name, name, "text/plain", text.length());
        folders.text(user, f.id(), text, 0);
        return folders.status(user, f.id(), FileStatus.COMPLETED);
    }

    @Test
    void attachingOpensTheNewestFilesUpToTheLimitAndListsBothWays() {
        Folder docs = store().folders().create("ana", "docs", "", "", Metadata.empty());
        FolderFile a = file("ana", docs, "a.txt", "alpha");
        FolderFile b = file("ana", docs, "b.txt", "beta");
        FolderFile c = file("ana", docs, "c.txt", "gamma");
        AgentFolders agents = store().folders().agents();

        assertThat(agents.attach(ANA, docs.id(), TWO_OPEN)).isTrue();
        assertThat(agents.attach(ANA, docs.id(), TWO_OPEN)).as("attached already").isFalse();
        assertThat(agents.attached(ANA)).extracting(Folder::id).containsExactly(docs.id());
        assertThat(agents.attached(ANA_COACH)).isEmpty();
        assertThat(agents.agents("ana", docs.id())).containsExactly(ANA.agentId());
        List<AgentFile> files = agents.files(ANA);
        assertThat(files).extracting(f -> f.file().id()).containsExactly(a.id(), b.id(), c.id());
        assertThat(files).extracting(AgentFile::open).containsExactly(false, true, true);
        assertThat(files.get(1).name()).isEqualTo("docs/b.txt");
        assertThat(files.get(2).visibleContent(1_000)).isEqualTo("1: gamma");
        assertThat(files.get(0).visibleContent(1_000)).as("closed").isEmpty();
    }

    @Test
    void openingPastTheLimitClosesTheLeastRecentlyUsedAndAWindowShowsItsLines() {
        Folder docs = store().folders().create("ana", "docs", "", "", Metadata.empty());
        FolderFile a = file("ana", docs, "a.txt", "one\ntwo\nthree\nfour");
        FolderFile b = file("ana", docs, "b.txt", "beta");
        FolderFile c = file("ana", docs, "c.txt", "gamma");
        AgentFolders agents = store().folders().agents();
        agents.attach(ANA, docs.id(), TWO_OPEN); // b, then c open

        assertThat(agents.open(ANA, a.id(), 1, 2, 2)).containsExactly("docs/b.txt");
        AgentFile opened = agents.byName(ANA, "docs/a.txt").orElseThrow();
        assertThat(opened.open()).isTrue();
        assertThat(opened.visibleContent(1_000)).isEqualTo("[Viewing lines 2 to 3 (out of 4 lines)]\n2: two\n3: three");
        assertThat(agents.byName(ANA, "a.txt")).as("a bare name only one file has").contains(opened);
        assertThat(agents.open(ANA, b.id(), 0, 0, 2)).containsExactly("docs/c.txt");
        assertThat(agents.files(ANA)).filteredOn(AgentFile::open).extracting(f -> f.file().id())
                .containsExactlyInAnyOrder(a.id(), b.id());

        assertThat(agents.close(ANA, a.id())).isTrue();
        assertThat(agents.close(ANA, a.id())).as("closed already").isFalse();
        assertThat(agents.closeAll(ANA, List.of())).containsExactly("docs/b.txt");
        assertThat(agents.files(ANA)).noneMatch(AgentFile::open);
        assertThat(agents.files(ANA)).extracting(f -> f.file().id()).contains(c.id());
    }

    @Test
    void aLongWindowIsCutToTheCharacterLimitWithLettasNote() {
        Folder docs = store().folders().create("ana", "docs", "", "", Metadata.empty());
        file("ana", docs, "long.txt", "x".repeat(500));
        store().folders().agents().attach(ANA, docs.id(), TWO_OPEN);
        String seen = store().folders().agents().files(ANA).get(0).visibleContent(200);
        assertThat(seen).hasSize(200).startsWith("1: xxx").endsWith(AgentFile.TRUNCATED);
    }

    @Test
    void badOpensAndAnotherUsersFoldersAndFilesChangeNothing() {
        Folder docs = store().folders().create("ana", "docs", "", "", Metadata.empty());
        FolderFile a = file("ana", docs, "a.txt", "one\ntwo");
        Folder bens = store().folders().create("ben", "bens", "", "", Metadata.empty());
        FolderFile secret = file("ben", bens, "secret.txt", "ben's");
        AgentFolders agents = store().folders().agents();

        assertThatThrownBy(() -> agents.attach(ANA, bens.id(), TWO_OPEN)).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> agents.attach(Scope.of("ana", "nobody"), docs.id(), TWO_OPEN))
                .isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> agents.open(ANA, a.id(), 0, 0, 2)).as("its folder is not attached")
                .isInstanceOf(NotFoundException.class);
        agents.attach(ANA, docs.id(), new FileLimits(1, 1_000)); // a opens
        agents.close(ANA, a.id());
        assertThatThrownBy(() -> agents.open(ANA, secret.id(), 0, 0, 2)).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> agents.open(ANA, a.id(), 5, 0, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has only 2 lines");
        assertThatThrownBy(() -> agents.open(ANA, a.id(), -1, 0, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThat(agents.files(ANA)).singleElement().satisfies(f -> assertThat(f.open()).isFalse());
        assertThat(agents.attached(BEN)).isEmpty();
        assertThatThrownBy(() -> agents.agents("ben", docs.id())).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> agents.detach(BEN, docs.id())).isInstanceOf(NotFoundException.class);
        assertThat(agents.attached(ANA)).hasSize(1);
    }

    @Test
    void detachingDeletingAFileTheFolderOrTheAgentForgetsTheAgentsFiles() {
        Folder docs = store().folders().create("ana", "docs", "", "", Metadata.empty());
        FolderFile a = file("ana", docs, "a.txt", "alpha");
        file("ana", docs, "b.txt", "beta");
        AgentFolders agents = store().folders().agents();
        agents.attach(ANA, docs.id(), TWO_OPEN);
        agents.attach(ANA_COACH, docs.id(), TWO_OPEN);

        store().folders().deleteFile("ana", a.id());
        assertThat(agents.files(ANA)).extracting(f -> f.file().name()).containsExactly("b.txt");

        assertThat(agents.detach(ANA, docs.id())).isTrue();
        assertThat(agents.detach(ANA, docs.id())).isFalse();
        assertThat(agents.files(ANA)).isEmpty();
        agents.attach(ANA, docs.id(), new FileLimits(1, 10));
        assertThat(agents.files(ANA)).singleElement().satisfies(f -> assertThat(f.open()).isTrue());

        store().agents().delete(ANA_COACH);
        assertThat(agents.agents("ana", docs.id())).containsExactly(ANA.agentId());
        store().folders().delete("ana", docs.id());
        assertThat(agents.attached(ANA)).isEmpty();
        assertThat(agents.files(ANA)).isEmpty();
    }

    @Test
    void theViewReadsTheTextOfOpenFilesOnlyNamedReadsNoneAndByNameReadsTheOneFileNamed() {
        Folder docs = store().folders().create("ana", "docs", "", "", Metadata.empty());
        FolderFile a = file("ana", docs, "a.txt", "alpha");
        FolderFile b = file("ana", docs, "b.txt", "beta");
        AgentFolders agents = store().folders().agents();
        agents.attach(ANA, docs.id(), new FileLimits(1, 1_000)); // b opens

        List<AgentFile> view = agents.view(ANA);
        assertThat(view).extracting(f -> f.file().id()).containsExactly(a.id(), b.id());
        assertThat(view).extracting(AgentFile::name).containsExactly("docs/a.txt", "docs/b.txt");
        assertThat(view).extracting(f -> f.file().text()).as("the closed file's text is not read").containsExactly("", "beta");
        assertThat(view.get(0).file().head()).isEqualTo(a.head());
        assertThat(view.get(0).file().sizeBytes()).isEqualTo(a.sizeBytes());
        assertThat(view).extracting(f -> f.visibleContent(1_000))
                .isEqualTo(agents.files(ANA).stream().map(f -> f.visibleContent(1_000)).toList());
        assertThat(agents.files(ANA)).extracting(f -> f.file().text()).containsExactly("alpha", "beta");
        assertThat(agents.byName(ANA, "docs/a.txt")).hasValueSatisfying(f -> assertThat(f.file().text()).isEqualTo("alpha"));
        assertThat(agents.named(ANA)).extracting(f -> f.file().text()).as("nothing read").containsExactly("", "");
        assertThat(agents.named(ANA)).extracting(AgentFile::open).containsExactly(false, true);
        assertThat(agents.view(BEN)).isEmpty();
    }

    @Test
    void aFileAddedAfterTheFolderWasAttachedIsTheAgentsClosedUntilOpened() {
        Folder docs = store().folders().create("ana", "docs", "", "", Metadata.empty());
        FolderFile a = file("ana", docs, "a.txt", "alpha");
        AgentFolders agents = store().folders().agents();
        agents.attach(ANA, docs.id(), TWO_OPEN);
        FolderFile late = file("ana", docs, "late.txt", "late news");

        assertThat(agents.view(ANA)).extracting(f -> f.file().id(), AgentFile::open)
                .containsExactly(tuple(a.id(), true),
                        tuple(late.id(), false));
        assertThat(agents.open(ANA, late.id(), 0, 0, 1)).containsExactly("docs/a.txt");
        assertThat(agents.view(ANA).get(1).visibleContent(1_000)).isEqualTo("1: late news");
        store().folders().deleteFile("ana", late.id());
        assertThat(agents.view(ANA)).extracting(f -> f.file().id()).containsExactly(a.id());
    }
}
