package dev.engram.framework;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import tools.jackson.databind.JsonNode;

/**
 * The approval stage of the tool pipeline: whether a call needs approval ({@link ApprovalGate}), and if so
 * asking the context's {@link ApprovalHandler} and waiting for its answer; a timeout denies. It shares the executor's
 * gate (and so its session approvals) and its results.
 */
final class ApprovalStage {
    private final ApprovalGate approvals;
    private final Duration approvalTimeout;
    private final PipelineResults results;
    /** The executor's log, where what the model is not told goes. */
    private final Logger log;

    ApprovalStage(ApprovalGate approvals, Duration approvalTimeout, PipelineResults results, Logger log) {
        this.approvals = approvals;
        this.approvalTimeout = approvalTimeout;
        this.results = results;
        this.log = log;
    }

    /** Empty when the call may run; else the result that refuses it (denied, timed out, cancelled, failed). */
    Optional<ToolResult> approve(ToolCall call, DynamicTool tool, JsonNode args, String raw, ToolContext context,
            long start) {
        String name = tool.name();
        ApprovalGate.Need need = approvals.need(tool, args);
        if (need == ApprovalGate.Need.NO) {
            return Optional.empty();
        }
        // The approval scope (which parses the arguments again) only when a session approval could apply.
        String approvalKey;
        try {
            approvalKey = approvalKey(tool, args);
        } catch (ToolException e) {
            return Optional.of(results.finish(call, start, PipelineResults.statusOf(e), e.getMessage(),
                    Truncation.KEEP_HEAD));
        } catch (Exception e) {
            log.warn("Approval scope of tool '{}' failed for call {}", name, call.id(), e);
            return Optional.of(results.finish(call, start, ToolStatus.FAILED, PipelineResults.internalError(name),
                    Truncation.KEEP_HEAD));
        }
        if (need == ApprovalGate.Need.UNLESS_APPROVED_FOR_SESSION && approvals.approvedForSession(context, approvalKey)) {
            return Optional.empty();
        }
        Optional<ApprovalHandler> handler = context.approvalHandler();
        if (handler.isEmpty()) {
            return Optional.of(results.finish(call, start, ToolStatus.APPROVAL_DENIED, "Tool '" + name
                    + "' needs approval, but no one can be asked in this context, so it did not run.",
                    Truncation.KEEP_HEAD));
        }
        Optional<String> preview;
        try {
            preview = tool instanceof ParsedArgumentsTool parsed
                    ? parsed.approvalPreviewParsed(args, context)
                    : tool.approvalPreview(raw, context);
        } catch (ToolException e) {
            return Optional.of(results.finish(call, start, PipelineResults.statusOf(e), e.getMessage(),
                    Truncation.KEEP_HEAD));
        } catch (Exception e) {
            log.warn("Approval preview of tool '{}' failed for call {}", name, call.id(), e);
            return Optional.of(results.finish(call, start, ToolStatus.FAILED, PipelineResults.internalError(name),
                    Truncation.KEEP_HEAD));
        }
        ApprovalRequest request = new ApprovalRequest(name, tool.safetyTier(), raw, preview, context, call.id());
        CompletableFuture<ApprovalDecision> answer;
        try {
            answer = handler.get().requestApproval(request).toCompletableFuture();
        } catch (RuntimeException e) {
            log.warn("Approval handler failed for tool '{}' (call {})", name, call.id(), e);
            return Optional.of(denied(call, start, "the approval request failed"));
        }
        Runnable unregister = context.cancellation().onCancel(() -> answer.cancel(false));
        try {
            ApprovalDecision decision = answer.get(approvalTimeout.toNanos(), TimeUnit.NANOSECONDS);
            if (decision == null || !decision.approved()) {
                String reason = decision == null || decision.reason().isBlank() ? "" : ": " + decision.reason();
                return Optional.of(denied(call, start, "the user denied it" + reason));
            }
            if (decision.rememberForSession()) {
                approvals.rememberForSession(context, approvalKey);
            }
            return Optional.empty();
        } catch (TimeoutException e) {
            answer.cancel(false);
            return Optional.of(denied(call, start, "no answer came within " + approvalTimeout.toMillis() + " ms"));
        } catch (CancellationException e) {
            return Optional.of(results.cancelled(call, start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.cancel(false);
            return Optional.of(results.cancelled(call, start));
        } catch (ExecutionException e) {
            log.warn("Approval handler failed for tool '{}' (call {})", name, call.id(), e.getCause());
            return Optional.of(denied(call, start, "the approval request failed"));
        } finally {
            unregister.run();
        }
    }

    private ToolResult denied(ToolCall call, long start, String why) {
        return results.finish(call, start, ToolStatus.APPROVAL_DENIED,
                "Tool '" + call.name() + "' was not approved (" + why + "), so it did not run.", Truncation.KEEP_HEAD);
    }

    /** What a session approval of this call is remembered as: the tool, narrowed by its approval scope. */
    static String approvalKey(DynamicTool tool, JsonNode args) throws Exception {
        Optional<String> scope = tool instanceof ParsedArgumentsTool parsed ? parsed.approvalScopeParsed(args)
                : tool.approvalScope(Json.MAPPER.writeValueAsString(args));
        return tool.name() + scope.map(s -> "\u0000" + s).orElse("");
    }
}
