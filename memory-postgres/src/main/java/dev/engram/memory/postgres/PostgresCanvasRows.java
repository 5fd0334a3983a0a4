package dev.engram.memory.postgres;

import dev.engram.memory.CanvasArtefact;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.mapper.RowMapper;

/** The canvas rows of {@link PostgresRows} (every version of each agent's artefacts), as {@code SqliteCanvasRows}. */
interface PostgresCanvasRows extends Rows {
    /** Runs an update with positional arguments; returns the rows changed. */
    int exec(String sql, Object... args);

    /** Runs a query with positional arguments. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    /** The first row of a query, if any. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args);

    private static CanvasArtefact artefact(ResultSet rs) throws SQLException {
        return new CanvasArtefact(Scope.of(rs.getString("user_id"), rs.getString("agent_id")), rs.getString("name"),
                rs.getInt("version"), rs.getString("title"), rs.getString("content"), Columns.instant(rs.getLong("created_at")));
    }

    @Override
    default void insertCanvas(CanvasArtefact a) {
        exec("INSERT INTO canvases (user_id, agent_id, name, version, title, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                a.scope().userId(), a.scope().agentId(), a.name(), a.version(), a.title(), a.content(),
                Columns.micros(a.createdAt()));
    }

    @Override
    default Optional<CanvasArtefact> canvas(Scope scope, String name, int version) {
        return one("SELECT * FROM canvases WHERE user_id = ? AND agent_id = ? AND name = ? AND version = ?",
                (rs, ctx) -> artefact(rs), scope.userId(), scope.agentId(), name, version);
    }

    @Override
    default int lastCanvasVersion(Scope scope, String name) {
        return one("SELECT coalesce(max(version), 0) AS v FROM canvases WHERE user_id = ? AND agent_id = ? AND name = ?",
                (rs, ctx) -> rs.getInt("v"), scope.userId(), scope.agentId(), name).orElse(0);
    }

    @Override
    default List<CanvasArtefact> canvasVersions(Scope scope, String name) {
        return query("SELECT * FROM canvases WHERE user_id = ? AND agent_id = ? AND name = ? ORDER BY version",
                (rs, ctx) -> artefact(rs), scope.userId(), scope.agentId(), name);
    }

    @Override
    default List<CanvasArtefact> listCanvases(Scope scope) {
        return query("SELECT DISTINCT ON (name) * FROM canvases WHERE user_id = ? AND agent_id = ? ORDER BY name, version DESC",
                (rs, ctx) -> artefact(rs), scope.userId(), scope.agentId());
    }
}
