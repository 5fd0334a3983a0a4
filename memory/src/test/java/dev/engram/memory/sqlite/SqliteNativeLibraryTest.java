package dev.engram.memory.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;

/** sqlite-jdbc's native library copied once into a cache directory, and copied again when missing or corrupt. */
class SqliteNativeLibraryTest {
    @TempDir
    Path dir;

    private static final FileTime LONG_AGO = FileTime.fromMillis(1_000_000_000L);

    @Test
    void copiedOnceUnderTheDriverVersionPlatformAndChecksumThenReused() throws Exception {
        Path library = SqliteNativeLibrary.cached(dir);
        byte[] original = resourceBytes();
        assertThat(library).hasBinaryContent(original);
        String folder = LibraryLoaderUtil.getNativeLibResourcePath().replaceFirst("^/?org/sqlite/native/", "").replace('/', '-');
        assertThat(library.getParent().getFileName().toString()).isEqualTo(String.format(Locale.ROOT, "%s-%s-%08x",
                SQLiteJDBCLoader.getVersion(), folder, crc(original)).replaceAll("[^A-Za-z0-9._-]", "_"));
        assertThat(library.getFileName().toString()).isEqualTo(LibraryLoaderUtil.getNativeLibName());

        Files.setLastModifiedTime(library, LONG_AGO);
        assertThat(SqliteNativeLibrary.cached(dir)).isEqualTo(library);
        assertThat(Files.getLastModifiedTime(library)).as("an intact copy is not written again").isEqualTo(LONG_AGO);
        try (var left = Files.list(library.getParent())) {
            assertThat(left).containsExactly(library); // no partial copies left behind
        }
    }

    @Test
    void aCorruptCopyIsCopiedAgain() throws Exception {
        Path library = SqliteNativeLibrary.cached(dir);
        byte[] bytes = Files.readAllBytes(library);
        bytes[bytes.length / 2] ^= 0x5A; // same size, one byte changed
        Files.write(library, bytes);
        Files.setLastModifiedTime(library, LONG_AGO);

        assertThat(SqliteNativeLibrary.cached(dir)).isEqualTo(library);
        assertThat(library).hasBinaryContent(resourceBytes());
        assertThat(Files.getLastModifiedTime(library)).isNotEqualTo(LONG_AGO);
    }

    @Test
    void aMissingOrTruncatedCopyIsCopiedAgain() throws Exception {
        Path library = SqliteNativeLibrary.cached(dir);
        Files.write(library, "truncated".getBytes(StandardCharsets.UTF_8));
        assertThat(SqliteNativeLibrary.cached(dir)).hasBinaryContent(resourceBytes());
        Files.delete(library);
        assertThat(SqliteNativeLibrary.cached(dir)).hasBinaryContent(resourceBytes());
    }

    @Test
    void aDirectoryThatCannotBeWrittenFailsAndWritesNothing() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("file"), "x");
        assertThatThrownBy(() -> SqliteNativeLibrary.cached(notADirectory)).isInstanceOf(IOException.class);
        assertThat(notADirectory).hasContent("x");
    }

    @Test
    void theDriverLoadsTheCachedCopy() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "needs /proc/self/maps (Linux)");
        Path cache = dir.resolve("cache");
        List<String> first = child(cache, dir.resolve("a.db"));
        Path library = SqliteNativeLibrary.cached(cache); // the same copy, found intact
        assertThat(first).contains("cache " + library, "mapped true", "read 1");
        // a second process finds the copy and does not write it again
        Files.setLastModifiedTime(library, LONG_AGO);
        assertThat(child(cache, dir.resolve("b.db"))).contains("cache " + library, "mapped true", "read 1");
        assertThat(Files.getLastModifiedTime(library)).isEqualTo(LONG_AGO);
    }

    @Test
    void withoutAUsableCacheTheDriverExtractsItsLibraryAsBefore() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("file"), "x");
        List<String> lines = child(notADirectory, dir.resolve("c.db"));
        assertThat(lines).contains("cache none", "read 1");
        assertThat(notADirectory).hasContent("x");
    }

    /** Runs {@link SqliteNativeLibraryChild} in a new JVM and returns what it printed. */
    private static List<String> child(Path cache, Path db) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                SqliteNativeLibraryChild.class.getName(), cache.toString(), db.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().toList();
    }

    private static byte[] resourceBytes() throws IOException {
        String path = LibraryLoaderUtil.getNativeLibResourcePath() + "/" + LibraryLoaderUtil.getNativeLibName();
        try (InputStream in = SQLiteJDBCLoader.class.getResourceAsStream(path)) {
            return in.readAllBytes();
        }
    }

    private static long crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }
}
