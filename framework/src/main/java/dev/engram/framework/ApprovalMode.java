package dev.engram.framework;

/**
 * When the pipeline asks an {@link ApprovalHandler} before running a call. {@link SafetyTier#READ_ONLY}
 * calls never ask, in any mode, unless an {@link ApprovalRule#alwaysAsk always-ask rule} matches them.
 */
public enum ApprovalMode {
    /**
     * Every side-effecting and privileged call asks, every time: auto-approve rules and approvals
     * remembered for the session are ignored.
     */
    ASK,
    /**
     * Read-only calls run; side-effecting and privileged calls ask unless an auto-approve rule
     * matches or the user approved that tool for the session. The default.
     */
    AUTO,
    /** Nothing asks, except calls matched by an always-ask rule. */
    YOLO
}
