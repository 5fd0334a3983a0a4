// What a test's fresh SQLite store costs: migrating a new file against copying a file migrated once (MigratedSqlite).
// Run on memory's test class path, e.g. (after ./mvnw -o -pl memory test-compile):
//   CP=$(sed -n 's/.*name="java.class.path" value="\([^"]*\)".*/\1/p' memory/target/surefire-reports/TEST-*.xml | head -1)
//   $JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED -cp "$CP" scripts/MigrationCost.java 20
// Prints, for three rounds of N stores each, the CPU time and wall time per store of both ways.
import dev.engram.memory.MemoryStore;
import java.lang.management.ManagementFactory;
import java.nio.file.*;
import java.sql.*;

public class MigrationCost {
    static long cpu() { return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime(); }
    public static void main(String[] a) throws Exception {
        Path dir = Files.createTempDirectory("migbench");
        Path template = dir.resolve("template.db");
        MemoryStore.sqlite(template).close();
        int n = Integer.parseInt(a[0]);
        for (int round = 0; round < 3; round++) {
            long c0 = cpu(), w0 = System.nanoTime();
            for (int i = 0; i < n; i++) { MemoryStore.sqlite(dir.resolve("m" + round + "_" + i + ".db")).close(); }
            long c1 = cpu(), w1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                Path file = dir.resolve("c" + round + "_" + i + ".db");
                Files.copy(template, file);
                Path wal = template.resolveSibling("template.db-wal");
                if (Files.exists(wal)) Files.copy(wal, file.resolveSibling(file.getFileName() + "-wal"));
                try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
                    st.execute("UPDATE store_identity SET id = lower(hex(randomblob(16)))");
                }
                MemoryStore.sqlite(file).close();
            }
            long c2 = cpu(), w2 = System.nanoTime();
            System.out.printf("round %d: migrate new %.1f ms cpu %.1f ms wall per store; copy+open %.1f ms cpu %.1f ms wall%n", round,
                (c1 - c0) / 1e6 / n, (w1 - w0) / 1e6 / n, (c2 - c1) / 1e6 / n, (w2 - w1) / 1e6 / n);
        }
    }
}
