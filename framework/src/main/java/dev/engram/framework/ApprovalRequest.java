package dev.engram.framework;

import java.util.Objects;
import java.util.Optional;

/**
 * What an {@link ApprovalHandler} is asked to approve. Arguments have already been validated.
 *
 * @param toolName  the tool
 * @param tier      its safety tier
 * @param arguments the validated arguments as JSON
 * @param preview   what the tool says the call will do, e.g. the unified diff of a file edit; empty
 *                  when the tool offers none
 * @param context   who is calling
 * @param callId    the model's id of the call, which a host shows with the request (Letta's
 *                  {@code approval_request_message} carries it); empty when the call came without one
 */
public record ApprovalRequest(
        String toolName, SafetyTier tier, String arguments, Optional<String> preview, ToolContext context, String callId) {
    public ApprovalRequest {
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(tier, "tier");
        Objects.requireNonNull(arguments, "arguments");
        Objects.requireNonNull(preview, "preview");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(callId, "callId");
    }

    /** A request for a call without an id. */
    public ApprovalRequest(String toolName, SafetyTier tier, String arguments, Optional<String> preview, ToolContext context) {
        this(toolName, tier, arguments, preview, context, "");
    }
}
