package dev.engram.framework;

/**
 * How much harm a tool call can do, which decides whether it needs approval and whether it may run
 * concurrently with other calls of the same model turn.
 */
public enum SafetyTier {
    /** Reads state and changes nothing; may run concurrently and never needs approval. */
    READ_ONLY,
    /** Changes state the agent owns (its memory, its workspace); asks in {@link ApprovalMode#ASK} and {@link ApprovalMode#AUTO}. */
    SIDE_EFFECTING,
    /** Reaches outside the agent (a shell, the host); asks unless approval is waived by mode or rule. */
    PRIVILEGED
}
