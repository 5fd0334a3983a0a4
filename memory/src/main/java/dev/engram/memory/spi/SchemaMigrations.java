package dev.engram.memory.spi;

import dev.engram.memory.MemoryException;
import dev.engram.memory.SchemaVersionException;
import java.util.Arrays;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flyway migrations for a backend's schema, refusing a database written by a newer schema (Flyway itself
 * would accept one silently) without changing it.
 */
public final class SchemaMigrations {
    private static final Logger LOG = LoggerFactory.getLogger(SchemaMigrations.class);

    /** The table that records the applied migrations. */
    public static final String HISTORY_TABLE = "engram_schema_history";

    private SchemaMigrations() {
    }

    /**
     * Applies the migrations under {@code location} (a {@code classpath:} location read with {@code loader}) to the
     * database behind {@code dataSource}; {@code what} names the database in messages. A database whose history
     * already ends, successfully, at {@code latestVersion} (the highest migration under {@code location}) is left as
     * it is without starting Flyway, whose scanning of the classpath costs about a second.
     *
     * @throws SchemaVersionException if the database was written by a newer schema; nothing is changed then
     * @throws MemoryException        if the migrations cannot be applied
     */
    public static void migrate(DataSource dataSource, String location, ClassLoader loader, String what, int latestVersion) {
        if (isAt(dataSource, latestVersion)) {
            return;
        }
        Flyway flyway = Flyway.configure(loader).dataSource(dataSource).locations(location).table(HISTORY_TABLE).load();
        try {
            MigrationInfo[] all = flyway.info().all();
            MigrationVersion known = Arrays.stream(all).filter(i -> i.getState().isResolved())
                    .map(MigrationInfo::getVersion).max(MigrationVersion::compareTo).orElse(MigrationVersion.EMPTY);
            Optional<MigrationInfo> future = Arrays.stream(all).filter(i -> !i.getState().isResolved() && i.getState().isApplied())
                    .max((a, b) -> a.getVersion().compareTo(b.getVersion()));
            if (future.isPresent()) {
                throw new SchemaVersionException("Memory database " + what + " was written by a newer Engram (schema version "
                        + future.get().getVersion() + "); this version understands up to schema version " + known
                        + ". Upgrade Engram to open it. The database was not changed.");
            }
            MigrateResult result = flyway.migrate();
            if (result.migrationsExecuted > 0) {
                LOG.info("Migrated memory database {} to schema version {}", what, result.targetSchemaVersion);
            }
        } catch (SchemaVersionException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new MemoryException("Cannot prepare memory database " + what + ": " + e.getMessage(), e);
        }
    }

    /** Whether every recorded migration succeeded and the highest is {@code version}; false when in doubt (no history yet). */
    private static boolean isAt(DataSource dataSource, int version) {
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery("SELECT version, success FROM " + HISTORY_TABLE + " WHERE version IS NOT NULL")) {
            int highest = 0;
            while (rs.next()) {
                if (!rs.getBoolean(2)) {
                    return false;
                }
                highest = Math.max(highest, Integer.parseInt(rs.getString(1).strip()));
            }
            return highest == version;
        } catch (java.sql.SQLException | NumberFormatException e) {
            return false;
        }
    }
}
