package dev.engram.framework;

import java.util.concurrent.CompletionStage;

/**
 * Asks a human (or a policy service) whether a tool call may run. Implementations return at once
 * and complete the stage when the answer arrives; the pipeline waits for it up to its approval
 * timeout and treats a timeout, an exception or a failed stage as a denial.
 */
@FunctionalInterface
public interface ApprovalHandler {
    CompletionStage<ApprovalDecision> requestApproval(ApprovalRequest request);
}
