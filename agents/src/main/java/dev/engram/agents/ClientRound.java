package dev.engram.agents;

import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.ApprovalHandler;
import dev.engram.framework.ApprovalRequest;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.Scope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of one step when some of them are calls of the turn's {@link ClientTools}: as Letta's loop does, every call
 * that waits for the client (a client tool's, or one of the agent's own tools that needs approval) is handed to the
 * client at once, before any call runs; when the client answered, the agent's calls run (those it approved, and those
 * that need no approval), and the client's results become the results of its calls.
 */
final class ClientRound {
    private static final Logger LOG = LoggerFactory.getLogger(ClientRound.class);

    /** The results of the step's calls, in the model's order, and the ids of the calls the client ran. */
    record Results(List<ToolResult> results, Set<String> ranByClient) {
    }

    private ClientRound() {
    }

    /**
     * Runs {@code calls} (the step's admitted calls, some to client tools), waiting for the client as long as the
     * executor waits for an approval.
     */
    static Results run(ClientTools client, ToolExecutor executor, ToolContext context, Scope scope, List<ToolCall> calls,
            Consumer<ApprovalRequest> asked) {
        List<ClientCall> waiting = new ArrayList<>();
        for (ToolCall call : calls) {
            if (client.has(call.name())) {
                waiting.add(new ClientCall(call.id(), call.name(), call.arguments(), ClientCall.Kind.RUN, Optional.empty()));
            } else {
                executor.approvalRequest(call, context).ifPresent(r -> {
                    asked.accept(r);
                    waiting.add(new ClientCall(call.id(), call.name(), call.arguments(), ClientCall.Kind.APPROVE, r.preview()));
                });
            }
        }
        Map<String, ClientAnswer> answers = new HashMap<>();
        String missing = "";
        boolean cancelled = false;
        CompletableFuture<Map<String, ClientAnswer>> answer;
        try {
            answer = client.handler().await(scope, List.copyOf(waiting)).toCompletableFuture();
        } catch (RuntimeException e) {
            LOG.warn("The client handler failed for {} calls of {}", waiting.size(), scope, e);
            answer = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Map<String, ClientAnswer>> pending = answer;
        Runnable unregister = context.cancellation().onCancel(() -> pending.cancel(false));
        try {
            answers.putAll(pending.get(executor.approvalTimeout().toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            pending.cancel(false);
            missing = "no answer came from the client within " + executor.approvalTimeout().toMillis() + " ms";
        } catch (CancellationException e) {
            cancelled = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pending.cancel(false);
            cancelled = true;
        } catch (ExecutionException e) {
            LOG.warn("The client handler failed for {} calls of {}", waiting.size(), scope, e.getCause());
            missing = "the request to the client failed";
        } finally {
            unregister.run();
        }
        if (cancelled) {
            context.cancellation().cancel();
        }
        return results(client, executor, context, calls, answers, missing, cancelled);
    }

    private static Results results(ClientTools client, ToolExecutor executor, ToolContext context, List<ToolCall> calls,
            Map<String, ClientAnswer> answers, String missing, boolean cancelled) {
        Optional<ApprovalHandler> fallback = context.approvalHandler();
        ApprovalHandler decided = request -> {
            ClientAnswer a = answers.get(request.callId());
            if (a instanceof ClientAnswer.Decided d) {
                return CompletableFuture.completedFuture(d.decision());
            }
            if (!missing.isEmpty()) {
                return CompletableFuture.completedFuture(ApprovalDecision.deny(missing));
            }
            return fallback.map(h -> h.requestApproval(request))
                    .orElseGet(() -> CompletableFuture.completedFuture(ApprovalDecision.deny("no one can be asked")));
        };
        List<ToolCall> agentCalls = calls.stream().filter(c -> !client.has(c.name())).toList();
        List<ToolResult> ran = agentCalls.isEmpty() ? List.of()
                : executor.executeAll(agentCalls, context.toBuilder().approvalHandler(decided).build());
        List<ToolResult> out = new ArrayList<>(calls.size());
        Set<String> byClient = new HashSet<>();
        int next = 0;
        for (ToolCall call : calls) {
            if (!client.has(call.name())) {
                out.add(ran.get(next++));
                continue;
            }
            byClient.add(call.id());
            ClientAnswer a = answers.get(call.id());
            ToolResult r;
            if (a instanceof ClientAnswer.Ran ran1) {
                r = executor.resultOf(call, ran1.failed() ? ToolStatus.TOOL_ERROR : ToolStatus.SUCCESS, ran1.content());
            } else if (a instanceof ClientAnswer.Decided d && !d.decision().approved()) {
                String reason = d.decision().reason().isBlank() ? "" : ": " + d.decision().reason();
                r = executor.resultOf(call, ToolStatus.APPROVAL_DENIED, "Tool '" + call.name()
                        + "' was not approved (the user denied it" + reason + "), so it did not run.");
            } else if (cancelled) {
                r = executor.resultOf(call, ToolStatus.CANCELLED, "Tool call '" + call.name() + "' was cancelled.");
            } else {
                String why = a != null ? "the client approved it instead of running it" : missing.isEmpty() ? "its result never came" : missing;
                r = executor.resultOf(call, ToolStatus.TIMED_OUT, "Tool '" + call.name() + "' runs on the user's side, and "
                        + why + ", so it has no result.");
            }
            out.add(r);
        }
        return new Results(out, byClient);
    }
}
