package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.tools.PdfFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code engram folder create|upload|list|rm} and {@code engram search --folder}, through picocli as a user types them. */
class FolderCommandsTest {
    @TempDir
    Path home;

    @TempDir
    Path work;

    private Cli.Run ok(String... args) {
        return Cli.ok(home, args);
    }

    @Test
    void aThreePagePdfUploadedWithAProgressBarIsFoundOnItsThirdPageByEngramSearch() throws Exception {
        assertThat(ok("folder", "create", "manuals", "--user", "ana", "--description", "Boiler manuals").out())
                .containsPattern("Created folder 'manuals' \\(source-[0-9a-f-]{36}\\)\\.");
        Path pdf = Files.write(work.resolve("boiler.pdf"), PdfFiles.threePageManual());
        Cli.Run up = ok("folder", "upload", "manuals", pdf.toString(), "--user", "ana", "--chunk-chars", "200");
        assertThat(up.out()).containsPattern("Uploaded \\d+ chunks \\(\\d+ characters\\) from 1 files into folder 'manuals' "
                + "in [0-9.]+ s \\([0-9.]+ MB/s\\)\\.");
        assertThat(up.err()).contains("upload [").contains("#");

        Cli.Run hit = ok("search", "at what pressure does the relief valve open", "--user", "ana", "--folder", "manuals", "--k", "1");
        assertThat(hit.out()).contains("files").contains("[manuals/boiler.pdf]").contains(PdfFiles.PAGE_THREE);
        assertThat(ok("search", "relief valve", "--user", "ana", "--domain", "files", "--json").out())
                .contains("\"file\" : \"manuals/boiler.pdf\"").contains(PdfFiles.PAGE_THREE);
        assertThat(ok("search", "relief valve", "--user", "ben", "--domain", "notes").out()).doesNotContain("relief");

        assertThat(ok("folder", "list", "--user", "ana").out()).contains("manuals").contains("1 files");
        assertThat(ok("folder", "list", "manuals", "--user", "ana").out()).contains("manuals/boiler.pdf").contains("completed");
        assertThat(ok("folder", "rm", "manuals", "--file", "boiler.pdf", "--user", "ana").out()).contains("Deleted 'manuals/boiler.pdf'");
        assertThat(ok("search", "relief valve", "--user", "ana", "--folder", "manuals").out()).contains("No results.");
        assertThat(ok("folder", "rm", "manuals", "--user", "ana").out()).contains("Deleted folder 'manuals'");
        assertThat(ok("folder", "list", "--user", "ana").out()).contains("No folders.");
    }

    @Test
    void badUploadsAndUnknownFoldersAreRefusedInOneLineAndStoreNothing() throws Exception {
        ok("folder", "create", "docs", "--user", "ana");
        Path docx = Files.write(work.resolve("report.docx"), new byte[] {1, 2});
        Cli.oneLineError(Cli.run(home, "folder", "upload", "docs", docx.toString(), "--user", "ana"), 2,
                "'report.docx' is not a format a folder accepts; upload one of .txt");
        Path text = Files.writeString(work.resolve("a.txt"), "Alpha.");
        Cli.oneLineError(Cli.run(home, "folder", "upload", "nope", text.toString(), "--user", "ana"), 2,
                "User 'ana' has no folder 'nope'; the folders are docs");
        Cli.oneLineError(Cli.run(home, "folder", "upload", "docs", text.toString(), "--user", "ana", "--duplicates", "rename"), 2,
                "suffix, error, skip or replace");
        Cli.oneLineError(Cli.run(home, "folder", "create", "docs", "--user", "ana"), 1, "'docs' already exists");
        Cli.oneLineError(Cli.run(home, "search", "alpha", "--user", "ben", "--domain", "files"), 2, "has no folders to search");
        assertThat(ok("folder", "list", "docs", "--user", "ana").out()).isEmpty();

        Path broken = Files.writeString(work.resolve("b.json"), "{\"broken\": ");
        Cli.Run failed = Cli.run(home, "folder", "upload", "docs", broken.toString(), "--user", "ana");
        assertThat(failed.exit()).isEqualTo(1);
        assertThat(failed.err()).contains("b.json failed: 'b.json' is not JSON");
        assertThat(ok("folder", "list", "docs", "--user", "ana").out()).contains("docs/b.json").contains("error");
    }

    @Test
    void aFolderAttachedToAnAgentIsInItsPromptWithTheFileToolsAndDetachedAgain() throws Exception {
        ok("agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini");
        ok("folder", "create", "manuals", "--user", "ana");
        Path notes = Files.writeString(work.resolve("notes.md"), "Service every spring.");
        ok("folder", "upload", "manuals", notes.toString(), "--user", "ana");
        assertThat(ok("folder", "attach", "manuals", "--agent", "helper", "--user", "ana").out())
                .contains("Attached folder 'manuals' to agent 'helper' (1 files open).");
        assertThat(ok("agent", "show", "helper", "--user", "ana").out()).contains("semantic_search_files");
        Cli.oneLineError(Cli.run(home, "folder", "attach", "nope", "--agent", "helper", "--user", "ana"), 2, "has no folder 'nope'");
        assertThat(ok("folder", "detach", "manuals", "--agent", "helper", "--user", "ana").out())
                .contains("Detached folder 'manuals' from agent 'helper'.");
        assertThat(ok("agent", "show", "helper", "--user", "ana").out()).doesNotContain("semantic_search_files");
    }
}
