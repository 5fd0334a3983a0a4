package dev.engram.framework;

import java.util.Objects;

/**
 * An approval handler's answer.
 *
 * @param approved            whether the call may run
 * @param rememberForSession  when approved: approve this tool (or, for a tool that narrows its
 *                            {@linkplain DynamicTool#approvalScope approval scope}, calls of the same scope,
 *                            such as the same shell command) for the rest of the session without asking
 *                            again (honoured in {@link ApprovalMode#AUTO} only)
 * @param reason              optional words for the model when denied, e.g. "the user wants a dry run first"
 */
public record ApprovalDecision(boolean approved, boolean rememberForSession, String reason) {
    public ApprovalDecision {
        Objects.requireNonNull(reason, "reason");
    }

    public static ApprovalDecision approve() {
        return new ApprovalDecision(true, false, "");
    }

    public static ApprovalDecision approveForSession() {
        return new ApprovalDecision(true, true, "");
    }

    public static ApprovalDecision deny() {
        return new ApprovalDecision(false, false, "");
    }

    public static ApprovalDecision deny(String reason) {
        return new ApprovalDecision(false, false, reason);
    }
}
