package dev.engram.cli;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.engram.tools.ConsentRequest;
import dev.engram.tools.PermissionBroker;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.json.JsonMapper;

/**
 * Consent to writes of partner and human blocks for {@code engram mcp}: the MCP client is asked through elicitation
 * (its user accepts or declines a form with one yes/no field). A client that does not declare elicitation support is
 * not asked, and the write is refused saying so. The client asked is the one whose tool call wants the write: each call
 * registers its exchange under its call id while it runs (over HTTP, many clients call at once).
 */
final class McpConsent implements PermissionBroker {
    /**
     * The MCP SDK (2.1) writes an elicitation request's {@code mode} both as its type id and as a property, which
     * Jackson 3 refuses (the request is never sent, and the stdio transport stops writing): this mix-in makes the
     * type id the existing property. Register it on the server's JSON mapper ({@link #mapper()}).
     */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.EXISTING_PROPERTY, property = "mode",
            defaultImpl = McpSchema.ElicitFormRequest.class, visible = true)
    private interface ElicitRequestMixIn {
    }

    /** The JSON mapper of {@code engram mcp}'s transport, able to write elicitation requests. */
    static JsonMapper mapper() {
        return JsonMapper.builder().addMixIn(McpSchema.ElicitRequest.class, ElicitRequestMixIn.class).build();
    }

    private final Map<String, McpSyncServerExchange> calls = new ConcurrentHashMap<>();

    /** Remembers the exchange of the client making tool call {@code callId}, until {@link #done}. */
    void calledBy(String callId, McpSyncServerExchange exchange) {
        calls.put(callId, exchange);
    }

    /** Forgets the exchange of a tool call that has been answered. */
    void done(String callId) {
        calls.remove(callId);
    }

    @Override
    public CompletionStage<Boolean> requestConsent(ConsentRequest request) {
        McpSyncServerExchange exchange = calls.get(request.callId());
        if (exchange == null) {
            return PermissionBroker.cannotAsk("no MCP client is connected to ask");
        }
        McpSchema.ClientCapabilities capabilities = exchange.getClientCapabilities();
        if (capabilities == null || capabilities.elicitation() == null) {
            McpSchema.Implementation info = exchange.getClientInfo();
            return PermissionBroker.cannotAsk("the MCP client" + (info == null ? "" : " '" + info.name() + "'")
                    + " does not support elicitation, so its user cannot be asked; use a client that does, or change the "
                    + "block with 'engram block'");
        }
        McpSchema.ElicitRequest ask = McpSchema.ElicitRequest.builder()
                .message("Agent '" + request.agentId() + "' wants to " + request.operation().name().toLowerCase(Locale.ROOT)
                        + " block '" + request.label() + "' (permission " + request.permission().name().toLowerCase(Locale.ROOT)
                        + "): " + request.change() + ". Allow it?")
                .requestedSchema(Map.of("type", "object", "properties", Map.of("allow", Map.of("type", "boolean",
                        "title", "Allow this change", "default", true)), "required", List.of("allow")))
                .build();
        // The exchange blocks until the client answers; the block tool waits on the stage up to its consent timeout.
        return CompletableFuture.supplyAsync(() -> {
            McpSchema.ElicitResult answer = exchange.createElicitation(ask);
            return answer.action() == McpSchema.ElicitResult.Action.ACCEPT && answer.content() != null
                    && Boolean.TRUE.equals(answer.content().get("allow"));
        }, task -> Thread.ofVirtual().name("engram-mcp-consent").start(task));
    }
}
