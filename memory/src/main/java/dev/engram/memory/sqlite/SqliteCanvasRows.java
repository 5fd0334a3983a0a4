package dev.engram.memory.sqlite;

import dev.engram.memory.CanvasArtefact;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The canvas rows of {@link SqliteRows} (every version of each agent's artefacts), on the handle of its transaction. */
interface SqliteCanvasRows extends Rows {
    /** The handle of the transaction (or read) the rows work in. */
    Handle handle();

    private static CanvasArtefact artefact(ResultSet rs) throws SQLException {
        return new CanvasArtefact(Scope.of(rs.getString("user_id"), rs.getString("agent_id")), rs.getString("name"),
                rs.getInt("version"), rs.getString("title"), rs.getString("content"), Columns.instant(rs.getLong("created_at")));
    }

    @Override
    default void insertCanvas(CanvasArtefact a) {
        handle().createUpdate("INSERT INTO canvases (user_id, agent_id, name, version, title, content, created_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?)")
                .bind(0, a.scope().userId()).bind(1, a.scope().agentId()).bind(2, a.name()).bind(3, a.version())
                .bind(4, a.title()).bind(5, a.content()).bind(6, Columns.micros(a.createdAt())).execute();
    }

    @Override
    default Optional<CanvasArtefact> canvas(Scope scope, String name, int version) {
        return handle().createQuery("SELECT * FROM canvases WHERE user_id = ? AND agent_id = ? AND name = ? AND version = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, name).bind(3, version)
                .map((rs, ctx) -> artefact(rs)).findOne();
    }

    @Override
    default int lastCanvasVersion(Scope scope, String name) {
        return handle().createQuery("SELECT coalesce(max(version), 0) FROM canvases WHERE user_id = ? AND agent_id = ? AND name = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, name).mapTo(Integer.class).one();
    }

    @Override
    default List<CanvasArtefact> canvasVersions(Scope scope, String name) {
        return handle().createQuery("SELECT * FROM canvases WHERE user_id = ? AND agent_id = ? AND name = ? ORDER BY version")
                .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, name).map((rs, ctx) -> artefact(rs)).list();
    }

    @Override
    default List<CanvasArtefact> listCanvases(Scope scope) {
        return handle().createQuery("SELECT c.* FROM canvases c WHERE c.user_id = ? AND c.agent_id = ? AND c.version = "
                        + "(SELECT max(version) FROM canvases l WHERE l.user_id = c.user_id AND l.agent_id = c.agent_id "
                        + "AND l.name = c.name) ORDER BY c.name")
                .bind(0, scope.userId()).bind(1, scope.agentId()).map((rs, ctx) -> artefact(rs)).list();
    }
}
