package dev.engram.framework;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import tools.jackson.databind.JsonNode;

/**
 * The run stage of the tool pipeline: runs the tool on a virtual thread with its timeout (a timed-out or
 * cancelled tool is interrupted), or on the caller's thread when the tool runs inline
 * ({@link DynamicTool#runsInline()}), passes its progress on meanwhile, and cuts its serialised output to the budget. An
 * exception from the tool becomes a curated message; its stack trace goes to the log.
 */
final class ToolInvoker {
    private final PipelineResults results;
    /** The executor's log, where a tool's stack trace goes. */
    private final Logger log;

    ToolInvoker(PipelineResults results, Logger log) {
        this.results = results;
        this.log = log;
    }

    ToolResult invoke(ToolCall call, DynamicTool tool, JsonNode args, String raw, ToolContext context, long start,
            ProgressCoalescer progress) {
        if (tool.runsInline()) {
            // Cheap and trusted: on this thread, no hand-off (no timeout nor interruption to enforce).
            try {
                return output(call, tool, start, runTool(tool, args, raw, context));
            } catch (Throwable t) {
                return failure(call, tool, context, start, t);
            }
        }
        CompletableFuture<ToolOutput> output = new CompletableFuture<>();
        Thread worker = Thread.ofVirtual().name("engram-tool-" + tool.name()).unstarted(() -> {
            try {
                output.complete(runTool(tool, args, raw, context));
            } catch (Throwable t) {
                output.completeExceptionally(t);
            }
        });
        Runnable unregister = context.cancellation().onCancel(() -> {
            output.cancel(false);
            worker.interrupt();
        });
        worker.start();
        Duration timeout = tool.timeout();
        try {
            return output(call, tool, start, await(output, timeout, progress));
        } catch (TimeoutException e) {
            worker.interrupt();
            return results.finish(call, start, ToolStatus.TIMED_OUT, "Tool '" + tool.name() + "' timed out after "
                    + timeout.toMillis() + " ms and was stopped.", Truncation.KEEP_HEAD);
        } catch (CancellationException e) {
            return results.cancelled(call, start);
        } catch (InterruptedException e) {
            worker.interrupt();
            Thread.currentThread().interrupt();
            return results.cancelled(call, start);
        } catch (ExecutionException e) {
            return failure(call, tool, context, start, e.getCause());
        } finally {
            unregister.run();
        }
    }

    private static ToolOutput runTool(DynamicTool tool, JsonNode args, String raw, ToolContext context) throws Exception {
        return tool instanceof ParsedArgumentsTool parsed ? parsed.runParsed(args, context) : tool.run(raw, context);
    }

    /** A call that returned: its output serialised and cut to the budget. */
    private ToolResult output(ToolCall call, DynamicTool tool, long start, ToolOutput out) {
        if (out == null) {
            out = ToolOutput.of("OK");
        }
        Truncator.Cut cut = Truncator.cut(TypedTool.render(out.value()), results.outputBudgetBytes(), tool.truncation());
        return new ToolResult(call.id(), call.name(), cut.content(), ToolStatus.SUCCESS,
                Duration.ofNanos(System.nanoTime() - start), cut.truncated(), cut.originalBytes(), out.effects(),
                out.userMessage(), out.metadata());
    }

    /** A call that threw {@code cause}: a {@link ToolException}'s message for the model, anything else curated. */
    private ToolResult failure(ToolCall call, DynamicTool tool, ToolContext context, long start, Throwable cause) {
        if (cause instanceof ToolException te) {
            return results.finish(call, start, PipelineResults.statusOf(te), te.getMessage(), tool.truncation());
        }
        if (cause instanceof InterruptedException && context.cancellation().isCancelled()) {
            return results.cancelled(call, start);
        }
        log.warn("Tool '{}' failed for call {} ({})", tool.name(), call.id(), context, cause);
        return results.finish(call, start, ToolStatus.FAILED, PipelineResults.internalError(tool.name()),
                Truncation.KEEP_HEAD);
    }

    /** The tool's output within its timeout; meanwhile, the call's progress is passed on at every interval. */
    private static ToolOutput await(CompletableFuture<ToolOutput> output, Duration timeout, ProgressCoalescer progress)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (progress == null) {
            return output.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException();
            }
            try {
                return output.get(Math.min(left, progress.intervalNanos()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                progress.flushIfDue();
            }
        }
    }
}
