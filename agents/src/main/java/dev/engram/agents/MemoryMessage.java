package dev.engram.agents;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * One message of a conversation handed to {@link MemoryManager#add}: Mem0's shape, {@code {"role": "user", "content":
 * "I moved to Porto"}}.
 *
 * @param role    who said it: {@code user}, {@code assistant}, {@code system} or {@code tool}
 * @param content what was said; not blank
 */
public record MemoryMessage(String role, String content) {
    /** The roles a message may have. */
    public static final List<String> ROLES = List.of("user", "assistant", "system", "tool");

    public MemoryMessage {
        Objects.requireNonNull(role, "role must not be null");
        Objects.requireNonNull(content, "content must not be null");
        if (!ROLES.contains(role)) {
            throw new IllegalArgumentException("a message's role is one of " + ROLES + ", got '" + role + "'");
        }
        if (content.isBlank()) {
            throw new IllegalArgumentException("a " + role + " message's content must not be blank");
        }
    }

    /** A message the user wrote. */
    public static MemoryMessage user(String content) {
        return new MemoryMessage("user", content);
    }

    /** A message the assistant wrote. */
    public static MemoryMessage assistant(String content) {
        return new MemoryMessage("assistant", content);
    }

    /**
     * The messages of a JSON array of {@code {"role", "content"}} objects (other fields are ignored).
     *
     * @throws IllegalArgumentException naming the first element that is not such a message, or if the text is not a
     *                                  JSON array
     */
    public static List<MemoryMessage> parseList(String json) {
        Objects.requireNonNull(json, "json must not be null");
        JsonNode root;
        try {
            root = Heartbeats.JSON.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("the messages are not JSON: " + e.getOriginalMessage()
                    + "; send an array of {\"role\", \"content\"} objects", e);
        }
        return fromJson(root);
    }

    /** The messages of a parsed JSON array, as {@link #parseList}. */
    public static List<MemoryMessage> fromJson(JsonNode root) {
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException("the messages must be a JSON array of {\"role\", \"content\"} objects");
        }
        List<MemoryMessage> out = new ArrayList<>();
        for (int i = 0; i < root.size(); i++) {
            JsonNode m = root.get(i);
            if (!m.isObject() || !m.path("role").isString() || !m.path("content").isString()) {
                throw new IllegalArgumentException("message " + i + " must be an object with a string \"role\" and a string "
                        + "\"content\"");
            }
            try {
                out.add(new MemoryMessage(m.get("role").asString(), m.get("content").asString()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("message " + i + ": " + e.getMessage(), e);
            }
        }
        return List.copyOf(out);
    }
}
