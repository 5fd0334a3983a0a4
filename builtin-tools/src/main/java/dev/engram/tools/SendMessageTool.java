package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.Truncation;
import dev.engram.framework.ToolException;
import java.util.Map;
import java.util.Optional;

/**
 * {@code send_message}: says something to the user (or to another agent of the same user) and ends
 * the agent's turn: the agent loop yields after a successful call.
 */
final class SendMessageTool implements AiTool<SendMessageTool.Input, Map<String, Object>> {
    static final String NAME = "send_message";
    private static final ToolInfo INFO = new ToolInfo(NAME,
            "Send a message to the user, which is the only way the user sees what you say, and end your turn. "
                + "With target_agent_id, send it to another agent of the same user instead. Returns "
                + "{\"success\": true, \"message\": \"Message sent successfully\"}, plus the agent's \"reply\" when another agent "
                + "answered. A message to another agent does not end your turn.",
            SafetyTier.SIDE_EFFECTING, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);

    record Input(@JsonPropertyDescription("The message, as the recipient should read it.") String message,
            @JsonPropertyDescription("Send to this agent (of the same user) instead of the user.") Optional<String> targetAgentId) {
    }

    private final MessageRouter router;

    SendMessageTool(MessageRouter router) {
        this.router = router;
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public Map<String, Object> execute(Input in, ToolContext ctx) {
        if (in.message().isBlank()) {
            throw new ToolException("message is empty; write what to send.");
        }
        Optional<String> reply = router.deliver(new OutgoingMessage(ctx.requireUserId(), ctx.requireAgentId(),
                ctx.sessionId().orElse(""), in.targetAgentId().filter(s -> !s.isBlank()), in.message()));
        if (reply.isPresent()) {
            Map<String, Object> out = new java.util.LinkedHashMap<>();
            out.put("success", true);
            out.put("message", "Message sent successfully");
            out.put("reply", reply.get());
            return out;
        }
        return Map.of("success", true, "message", "Message sent successfully");
    }
}
