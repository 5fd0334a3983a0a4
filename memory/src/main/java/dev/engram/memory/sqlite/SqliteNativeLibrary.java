package dev.engram.memory.sqlite;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;

/**
 * sqlite-jdbc's native library, kept in a cache directory across processes. Left to itself, sqlite-jdbc copies its
 * native library out of its jar into the temporary directory on every start, reads it back to compare it byte by
 * byte, and lists that directory for stale copies: a few percent of a short command's start. {@link #useCache} copies
 * it once into a directory named after the driver's version, the platform and the library's checksum (the jar entry's
 * CRC-32, read from the jar's directory without inflating the library), checks the copy against that checksum on
 * every start (a missing, truncated or altered copy is copied again, by writing a new file and renaming it over the
 * old one, so that a process that has the old one loaded keeps it), and points the driver at it. Anything that goes
 * wrong leaves the driver to its own way; and if the copy does not load, the driver falls back to that way too.
 */
public final class SqliteNativeLibrary {
    private static final Logger LOG = LoggerFactory.getLogger(SqliteNativeLibrary.class);
    /** The driver's own settings: the directory and the file name of the native library, and its scratch directory. */
    static final String LIB_PATH = "org.sqlite.lib.path";
    static final String LIB_NAME = "org.sqlite.lib.name";
    static final String TMP_DIR = "org.sqlite.tmpdir";
    private static Path configured;

    private SqliteNativeLibrary() {
    }

    /**
     * Points sqlite-jdbc at a copy of its native library in {@code directory} (created if missing), copying it there
     * first when it is missing, stale or corrupt. Call it before the first SQLite database opens in this process; later,
     * the driver has loaded its library already and this changes nothing. Does nothing when the driver's library path
     * ({@code -Dorg.sqlite.lib.path}) was set by someone else.
     *
     * @return the library the driver will load, or empty when it keeps its own way (the reason is logged at debug)
     */
    public static synchronized Optional<Path> useCache(Path directory) {
        if (configured != null) {
            return Optional.of(configured); // one library per process: the first call's
        }
        if (System.getProperty(LIB_PATH) != null) {
            return Optional.empty();
        }
        try {
            Path library = cached(directory);
            System.setProperty(LIB_PATH, library.getParent().toString());
            System.setProperty(LIB_NAME, library.getFileName().toString());
            if (System.getProperty(TMP_DIR) == null) {
                // what the driver lists for its stale copies at start: this small directory rather than /tmp
                System.setProperty(TMP_DIR, directory.toAbsolutePath().toString());
            }
            configured = library;
            return Optional.of(library);
        } catch (IOException | RuntimeException e) {
            LOG.debug("sqlite-jdbc's native library is not cached in {}; the driver extracts it as usual", directory, e);
            return Optional.empty();
        }
    }

    /**
     * The native library for this platform in {@code directory}, under a name made of the driver's version, the
     * platform and the library's CRC-32; copied out of the driver's jar when that file is missing or its CRC-32 differs.
     *
     * @throws IOException when the driver has no library for this platform, or the copy cannot be written
     */
    static Path cached(Path directory) throws IOException {
        String folder = LibraryLoaderUtil.getNativeLibResourcePath();
        String name = LibraryLoaderUtil.getNativeLibName();
        URL resource = SQLiteJDBCLoader.class.getResource(folder + "/" + name);
        if (resource == null) {
            throw new IOException("sqlite-jdbc has no native library at " + folder + "/" + name);
        }
        long crc = expectedCrc(resource);
        String platform = folder.replaceFirst("^/?org/sqlite/native/", "").replace('/', '-');
        String key = String.format(Locale.ROOT, "%s-%s-%08x", SQLiteJDBCLoader.getVersion(), platform, crc)
                .replaceAll("[^A-Za-z0-9._-]", "_");
        Path dir = directory.toAbsolutePath().resolve(key);
        Path library = dir.resolve(name);
        if (Files.isRegularFile(library) && crcOf(library) == crc) {
            return library;
        }
        Files.createDirectories(dir);
        Path part = Files.createTempFile(dir, name + ".", ".part");
        try {
            try (InputStream in = resource.openStream()) {
                Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
            }
            if (crcOf(part) != crc) {
                throw new IOException("the copy of " + resource + " in " + dir + " does not match its checksum");
            }
            Files.move(part, library, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(part);
        }
        return library;
    }

    /** The CRC-32 of the library in the jar, from the jar's directory; outside a jar, computed from its bytes. */
    private static long expectedCrc(URL resource) throws IOException {
        URLConnection connection = resource.openConnection();
        if (connection instanceof JarURLConnection jar) {
            long crc = jar.getJarEntry().getCrc();
            if (crc >= 0) {
                return crc;
            }
        }
        CRC32 crc = new CRC32();
        try (InputStream in = connection.getInputStream()) {
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                crc.update(buffer, 0, n);
            }
        }
        return crc.getValue();
    }

    private static long crcOf(Path file) throws IOException {
        CRC32 crc = new CRC32();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 16);
            while (channel.read(buffer) > 0) {
                buffer.flip();
                crc.update(buffer);
                buffer.clear();
            }
        }
        return crc.getValue();
    }
}
