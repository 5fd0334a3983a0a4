package dev.engram.memory.spi;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageImage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Update;

/**
 * The images of user messages in a SQL backend's {@code message_images} table (one row per image: its message, its
 * position, the scope, and either its media type and bytes or its URL), shared by the SQLite and PostgreSQL backends.
 * A text-only message has no rows, so reading messages costs one more query only where a listing holds images.
 */
public final class MessageImageRows {
    private MessageImageRows() {
    }

    /** Stores the images of message {@code messageId} of {@code scope}, in order; nothing for an empty list. */
    public static void insert(Handle h, Scope scope, long messageId, List<MessageImage> images) {
        if (images.isEmpty()) {
            return;
        }
        for (int i = 0; i < images.size(); i++) {
            // one statement per image: a batch would bind NULLs of one row's type to the next row's values
            Update insert = h.createUpdate("INSERT INTO message_images (message_id, position, user_id, agent_id, "
                    + "media_type, data, url) VALUES (:m, :p, :u, :a, :t, :d, :url)")
                    .bind("m", messageId).bind("p", i).bind("u", scope.userId()).bind("a", scope.agentId());
            switch (images.get(i)) {
                case MessageImage.Inline in -> insert.bind("t", in.mediaType()).bind("d", in.data()).bindNull("url", Types.VARCHAR);
                case MessageImage.Url url -> insert.bindNull("t", Types.VARCHAR).bindNull("d", Types.BINARY).bind("url", url.url());
            }
            insert.execute();
        }
    }

    /**
     * {@code messages} (all of {@code scope}) with their images read back: one query over the scope's images between
     * the smallest and largest id, for user messages only.
     */
    public static List<ConversationMessage> attach(Handle h, Scope scope, List<ConversationMessage> messages) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (ConversationMessage m : messages) {
            if (m.role() == MessageRole.USER) {
                min = Math.min(min, m.id());
                max = Math.max(max, m.id());
            }
        }
        if (min > max) {
            return messages;
        }
        Map<Long, List<MessageImage>> images = new HashMap<>();
        h.createQuery("SELECT message_id, media_type, data, url FROM message_images WHERE user_id = :u AND agent_id = :a "
                        + "AND message_id BETWEEN :min AND :max ORDER BY message_id, position")
                .bind("u", scope.userId()).bind("a", scope.agentId()).bind("min", min).bind("max", max)
                .map((rs, ctx) -> {
                    images.computeIfAbsent(rs.getLong("message_id"), k -> new ArrayList<>()).add(image(rs));
                    return Boolean.TRUE;
                }).list();
        if (images.isEmpty()) {
            return messages;
        }
        List<ConversationMessage> out = new ArrayList<>(messages.size());
        for (ConversationMessage m : messages) {
            List<MessageImage> mine = images.get(m.id());
            out.add(mine == null ? m : m.withImages(mine));
        }
        return out;
    }

    private static MessageImage image(ResultSet rs) throws SQLException {
        String url = rs.getString("url");
        return url != null ? MessageImage.url(url) : MessageImage.inline(rs.getString("media_type"), rs.getBytes("data"));
    }
}
