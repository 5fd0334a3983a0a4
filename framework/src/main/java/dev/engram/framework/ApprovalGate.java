package dev.engram.framework;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;

/**
 * Whether a call needs approval: a tool that {@linkplain DynamicTool#alwaysNeedsApproval() always needs it} does,
 * on every call; otherwise the {@link ApprovalMode}, the {@link ApprovalRule}s in the order added (any matching
 * always-ask rule wins) and the tool's {@link SafetyTier}, plus the approvals remembered for a session (per session,
 * agent and user). The executor asks the handler; this decides when. Thread-safe.
 */
final class ApprovalGate {
    /** Whether a call needs approval. */
    enum Need {
        NO,
        YES,
        /** Unless its session approved calls of this tool (and approval scope) before. */
        UNLESS_APPROVED_FOR_SESSION
    }

    private final ApprovalMode mode;
    private final List<ApprovalRule> rules;
    /** Approved approval keys per session key. */
    private final ConcurrentHashMap<String, Set<String>> sessionApprovals = new ConcurrentHashMap<>();

    ApprovalGate(ApprovalMode mode, List<ApprovalRule> rules) {
        this.mode = mode;
        this.rules = List.copyOf(rules);
    }

    ApprovalMode mode() {
        return mode;
    }

    /** Whether this call of the tool needs approval. */
    Need need(DynamicTool tool, JsonNode args) {
        if (tool.alwaysNeedsApproval()) {
            return Need.YES;
        }
        String name = tool.name();
        boolean autoRule = false;
        for (ApprovalRule rule : rules) {
            if (rule.matches(name, args)) {
                if (rule.action() == ApprovalRule.Action.ALWAYS_ASK) {
                    return Need.YES;
                }
                autoRule = true;
            }
        }
        if (tool.safetyTier() == SafetyTier.READ_ONLY) {
            return Need.NO;
        }
        return switch (mode) {
            case YOLO -> Need.NO;
            case ASK -> Need.YES;
            case AUTO -> autoRule ? Need.NO : Need.UNLESS_APPROVED_FOR_SESSION;
        };
    }

    /** Whether some call of this tool could need approval, whatever its arguments. */
    boolean mayAsk(DynamicTool tool) {
        if (tool.alwaysNeedsApproval()) {
            return true;
        }
        String name = tool.name();
        SafetyTier tier = tool.safetyTier();
        for (ApprovalRule rule : rules) {
            if (rule.action() == ApprovalRule.Action.ALWAYS_ASK && rule.mayMatch(name)) {
                return true;
            }
        }
        if (tier == SafetyTier.READ_ONLY) {
            return false;
        }
        return switch (mode) {
            case YOLO -> false;
            case ASK -> true;
            case AUTO -> rules.stream().noneMatch(r -> r.action() == ApprovalRule.Action.AUTO_APPROVE && r.matchesEveryCall(name));
        };
    }

    boolean approvedForSession(ToolContext context, String approvalKey) {
        return sessionApprovals.getOrDefault(sessionKey(context), Set.of()).contains(approvalKey);
    }

    void rememberForSession(ToolContext context, String approvalKey) {
        sessionApprovals.computeIfAbsent(sessionKey(context), k -> ConcurrentHashMap.newKeySet()).add(approvalKey);
    }

    private static String sessionKey(ToolContext context) {
        return context.sessionId().orElse("") + "\u0000" + context.agentId().orElse("") + "\u0000"
                + context.userId().orElse("");
    }
}
