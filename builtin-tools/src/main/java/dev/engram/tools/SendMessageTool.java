package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolOutput;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.Truncation;
import dev.engram.framework.ToolException;
import java.util.Map;
import java.util.Optional;

/**
 * {@code send_message}: says something to the user (or to another agent of the same user). Its result says
 * which ({@link ToolEffect#MESSAGE_TO_USER} with the text, or {@link ToolEffect#AGENT_ANSWERED}); a loop that
 * yields on a message ends the turn on the first.
 */
final class SendMessageTool implements AiTool<SendMessageTool.Input, ToolOutput> {
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

    /** The user reads the {@code message} argument, when the call delivers it to them. */
    @Override
    public Optional<String> userMessageArgument() {
        return Optional.of("message");
    }

    /**
     * Delivers the message: to the user ({@link ToolEffect#MESSAGE_TO_USER}, with its text), or to another agent
     * ({@link ToolEffect#AGENT_ANSWERED} when that agent answered at once).
     */
    @Override
    public ToolOutput execute(Input in, ToolContext ctx) {
        if (in.message().isBlank()) {
            throw new ToolException("message is empty; write what to send.");
        }
        Optional<String> target = in.targetAgentId().filter(s -> !s.isBlank());
        Optional<String> reply = router.deliver(new OutgoingMessage(ctx.requireUserId(), ctx.requireAgentId(),
                ctx.sessionId().orElse(""), target, in.message()));
        if (reply.isPresent()) {
            Map<String, Object> out = new java.util.LinkedHashMap<>();
            out.put("success", true);
            out.put("message", "Message sent successfully");
            out.put("reply", reply.get());
            return ToolOutput.of(out, ToolEffect.AGENT_ANSWERED);
        }
        Map<String, Object> sent = Map.of("success", true, "message", "Message sent successfully");
        return target.isPresent() ? ToolOutput.of(sent) : ToolOutput.messageToUser(sent, in.message());
    }
}
