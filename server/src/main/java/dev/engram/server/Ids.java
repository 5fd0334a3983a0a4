package dev.engram.server;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

/**
 * The ids the API shows, and what they name in Engram. Agents the server creates are {@code agent-<uuid>}
 * (their Engram id too); a block is named by its owner agent and label, so its id is
 * {@code block-<base64url(owner "/" label)>} and needs no table; a message is {@code message-<n>} for the
 * store's message id; a tool is {@code tool-<name>}.
 */
final class Ids {
    /** The agent id under which a user's standalone blocks ({@code POST /v1/blocks/}) are kept. */
    static final String BLOCK_HOLDER = "letta-blocks";

    private Ids() {
    }

    static String newAgentId() {
        return "agent-" + UUID.randomUUID();
    }

    static String block(String ownerAgentId, String label) {
        return "block-" + Base64.getUrlEncoder().withoutPadding()
                .encodeToString((ownerAgentId + "/" + label).getBytes(StandardCharsets.UTF_8));
    }

    /** The owner agent and label a block id names; a 404 for anything that is not one. */
    static BlockRef block(String id) {
        if (id.startsWith("block-")) {
            try {
                String decoded = new String(Base64.getUrlDecoder().decode(id.substring("block-".length())),
                        StandardCharsets.UTF_8);
                int slash = decoded.indexOf('/');
                if (slash > 0 && slash < decoded.length() - 1) {
                    return new BlockRef(decoded.substring(0, slash), decoded.substring(slash + 1));
                }
            } catch (IllegalArgumentException e) {
                // falls through to not found
            }
        }
        throw ApiException.notFound("Block '" + id + "' not found.");
    }

    static String message(long id) {
        return "message-" + id;
    }

    /** The store's id of a message id; a 404 for anything that is not one. */
    static long message(String id, String what) {
        if (id.startsWith("message-")) {
            try {
                return Long.parseLong(id.substring("message-".length()));
            } catch (NumberFormatException e) {
                // falls through
            }
        }
        throw ApiException.notFound(what + " '" + id + "' is not a message id of this server.");
    }

    static String tool(String name) {
        return "tool-" + name;
    }

    /** The tool name of a tool id, or the name itself (Letta's clients send either). */
    static String toolName(String id) {
        return id.startsWith("tool-") ? id.substring("tool-".length()) : id;
    }

    /** A block named by its owner agent and label. */
    record BlockRef(String ownerAgentId, String label) {
    }
}
