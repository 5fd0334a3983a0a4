package dev.engram.framework;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link ToolHook}s of one executor, run in order; see {@link ToolHook} for what the pipeline promises. */
final class HookChain {
    private static final Logger LOG = LoggerFactory.getLogger(HookChain.class);

    private final List<ToolHook> hooks;
    private final int outputBudgetBytes;

    HookChain(List<ToolHook> hooks, int outputBudgetBytes) {
        this.hooks = List.copyOf(hooks);
        this.outputBudgetBytes = outputBudgetBytes;
    }

    boolean isEmpty() {
        return hooks.isEmpty();
    }

    /**
     * What the before hooks made of a call: the call to run (arguments perhaps rewritten) and the notes for the model,
     * or, when {@code refusal} is set, the status and text of a call that does not run.
     */
    record Gate(ToolCall call, List<String> notes, ToolStatus status, String refusal) {
        boolean refused() {
            return refusal != null;
        }
    }

    Gate before(ToolCall call, ToolContext context) {
        ToolCall current = call;
        List<String> notes = new ArrayList<>();
        for (ToolHook hook : hooks) {
            ToolHook.Before decision;
            try {
                decision = hook.before(current, context);
            } catch (ToolException e) {
                return new Gate(current, notes, ToolStatus.TOOL_ERROR, e.getMessage());
            } catch (Exception e) {
                LOG.warn("Tool hook {} failed before call {} to '{}'", hook.getClass().getName(), call.id(), call.name(), e);
                return new Gate(current, notes, ToolStatus.FAILED, failedBefore(call.name()));
            }
            if (decision == null) {
                LOG.warn("Tool hook {} returned null before call {} to '{}' (return Before.allow() to let it run)",
                        hook.getClass().getName(), call.id(), call.name());
                return new Gate(current, notes, ToolStatus.FAILED, failedBefore(call.name()));
            }
            if (decision.denial().isPresent()) {
                return new Gate(current, notes, ToolStatus.DENIED_BY_POLICY,
                        "Tool '" + call.name() + "' was blocked, so it did not run: " + decision.denial().get());
            }
            if (decision.arguments().isPresent()) {
                current = new ToolCall(current.id(), current.name(), decision.arguments().get());
            }
            decision.context().ifPresent(notes::add);
        }
        return new Gate(current, List.copyOf(notes), ToolStatus.SUCCESS, null);
    }

    /**
     * The call's result with the before hooks' notes added, through the after hooks, its duration counted from
     * {@code start} (nanoTime) to now.
     */
    ToolResult after(ToolCall call, ToolResult result, List<String> notes, ToolContext context, long start) {
        ToolResult current = notes.isEmpty() ? result
                : result.withContent(result.content() + "\n\n" + String.join("\n", notes));
        for (ToolHook hook : hooks) {
            ToolResult next;
            try {
                next = hook.after(call, current, context);
            } catch (ToolException e) {
                next = current.asError(ToolStatus.TOOL_ERROR, e.getMessage());
            } catch (Exception e) {
                LOG.warn("Tool hook {} failed on the result of call {} to '{}'", hook.getClass().getName(), call.id(), call.name(), e);
                next = current.asError(ToolStatus.FAILED, failedAfter(call.name()));
            }
            if (next == null || !next.callId().equals(current.callId()) || !next.toolName().equals(current.toolName())) {
                LOG.warn("Tool hook {} returned {} for call {} to '{}'; a hook must return a result of the same call "
                        + "(derive it with withContent, withMetadata or asError)", hook.getClass().getName(),
                        next == null ? "null" : "a result of call " + next.callId() + " to '" + next.toolName() + "'",
                        call.id(), call.name());
                next = current.asError(ToolStatus.FAILED, failedAfter(call.name()));
            }
            if (!next.content().equals(current.content())) {
                Truncator.Cut cut = Truncator.cut(next.content(), outputBudgetBytes, Truncation.KEEP_HEAD);
                if (cut.truncated()) {
                    next = new ToolResult(next.callId(), next.toolName(), cut.content(), next.status(), next.duration(),
                            true, cut.originalBytes(), next.effects(), next.userMessage(), next.metadata());
                }
            }
            current = next;
        }
        return new ToolResult(current.callId(), current.toolName(), current.content(), current.status(),
                Duration.ofNanos(System.nanoTime() - start), current.truncated(), current.originalBytes(), current.effects(),
                current.userMessage(), current.metadata());
    }

    private static String failedBefore(String tool) {
        return "A hook around tool '" + tool + "' failed before the call could run, so it did not run; the details were "
                + "logged. Try a different approach, or tell the user the tool is not working.";
    }

    private static String failedAfter(String tool) {
        return "Tool '" + tool + "' ran, but a hook failed on its result; the details were logged. What the call did "
                + "stays done: check before repeating it.";
    }
}
