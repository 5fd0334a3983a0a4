package dev.engram.agents;

import dev.engram.framework.ApprovalHandler;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ChatMessage;
import dev.engram.memory.Attempt;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.memory.ToolOutcome;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tool half of a step: admits the model's calls by the tool rules and the loop breaker, records
 * them, runs them through the pipeline, records their results, and reports what they mean for the
 * loop. Calls are recorded before any of them runs, so that a side effect never commits without a
 * record of the call that made it; their results follow in one transaction when all have run. What a
 * call did is what its result says ({@link ToolResult#status()}, {@link ToolResult#effects()}), never
 * what its name or text suggests.
 */
final class ToolStep {

    /** What an interrupted call's result says, to the model and in recall memory. */
    static final String INTERRUPTED = "The call was interrupted before it finished (the agent stopped); it may or may "
            + "not have taken effect. Check before repeating it.";

    /** What one step's tool calls did. */
    static final class Outcome {
        final List<ToolResult> results = new ArrayList<>();
        boolean heartbeat;
        /** A call delivered a message to the user ({@link ToolEffect#MESSAGE_TO_USER}). */
        boolean messagedUser;
        boolean agentAnswered;
        boolean memoryEdited;
        boolean anyFailed;
        boolean breakerTripped;
        boolean terminal;
        boolean continued;
        /** The calls' results as they ran, in the model's order, until {@link #store} records them. */
        private ToolResult[] ran = new ToolResult[0];
        private boolean[] broken = new boolean[0];
        private Set<String> ranByClient = Set.of();
        /** The stream events of the stored results, for the turn's listener once the step's transaction committed. */
        final List<AgentStreamEvent> returns = new ArrayList<>();

        /**
         * Whether the turn stops after these calls, and why; empty to take another step. In both loops a message that
         * reached the user ends the turn (the user has the answer) and so do a terminal tool, a cancel and the loop
         * breaker; failed calls are retried up to {@code maxCorrections} steps in a row. Then a
         * {@link AgentType.Loop#UNTIL_REPLY} loop always goes on (its turn ends when the model answers without a tool
         * call), and a {@link AgentType.Loop#HEARTBEATS} loop goes on only for a heartbeat, a memory edit, another
         * agent's answer or a continue rule.
         */
        Optional<AgentStopReason> stop(AgentType.Loop loop, boolean cancelled, int failingStepsBefore, int maxCorrections) {
            if (messagedUser) {
                return Optional.of(AgentStopReason.YIELDED);
            }
            if (terminal) {
                return Optional.of(AgentStopReason.TERMINAL_TOOL);
            }
            if (cancelled) {
                return Optional.of(AgentStopReason.CANCELLED);
            }
            if (breakerTripped) {
                return Optional.of(AgentStopReason.LOOP_BREAKER);
            }
            if (anyFailed) {
                return failingStepsBefore + 1 > maxCorrections ? Optional.of(AgentStopReason.TOO_MANY_ERRORS) : Optional.empty();
            }
            if (loop == AgentType.Loop.UNTIL_REPLY || heartbeat || memoryEdited || agentAnswered || continued) {
                return Optional.empty();
            }
            return Optional.of(AgentStopReason.NO_HEARTBEAT);
        }
    }

    private final AgentDefinition agent;
    private final AgentSettings settings;
    private final ToolExecutor executor;
    private final Scope scope;

    ToolStep(AgentDefinition agent, AgentSettings settings, ToolExecutor executor) {
        this.agent = agent;
        this.settings = settings;
        this.executor = executor;
        this.scope = agent.scope();
    }

    /**
     * Whether the step's calls can run inside the step's one unit of work ({@link #run} with {@code inUnit}): the store
     * can undo a failed call's writes ({@link dev.engram.memory.MemoryStore#supportsAttempts()}), no call may wait for
     * an approval or for the turn's client, and every call's tool runs on this thread ({@link DynamicTool#runsInline()}),
     * so that nothing it does waits for the unit to end.
     */
    boolean runsInOneUnit(Turn turn, ChatMessage.Assistant assistant, boolean mayAskForApproval) {
        if (mayAskForApproval || !settings.store().supportsAttempts()) {
            return false;
        }
        for (ToolCall call : assistant.toolCalls()) {
            if (turn.client.filter(c -> c.has(call.name())).isPresent()
                    || !executor.registry().find(call.name()).map(DynamicTool::runsInline).orElse(false)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Admits, records and runs the step's calls; their results are recorded by {@link #store}, which the loop calls in
     * the step's last transaction (with the step's record). {@code inUnit}: the step runs inside its unit of work
     * ({@link #runsInOneUnit}); each call then runs one at a time as an attempt whose writes are undone unless it
     * succeeds, so a call that fails half-way (a tool that writes and then throws) leaves nothing behind.
     */
    Outcome run(Turn turn, int step, ChatMessage.Assistant assistant, Set<String> available, boolean inUnit) {
        Outcome o = new Outcome();
        List<ToolCall> calls = assistant.toolCalls();
        int n = calls.size();
        ToolResult[] results = new ToolResult[n];
        List<ToolCall> recorded = new ArrayList<>(n);
        boolean[] admitted = new boolean[n];
        boolean[] broken = new boolean[n];
        List<ToolCall> toRun = new ArrayList<>();
        List<Integer> toRunIndex = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ToolCall call = calls.get(i);
            ToolRuleSolver.Admission admission = turn.rules.admit(call.name(), available);
            if (admission.refusal().isPresent()) {
                recorded.add(call);
                results[i] = ToolResult.withoutEffects(call, ToolStatus.REFUSED, admission.refusal().get());
                continue;
            }
            admitted[i] = true;
            call = prefilled(call, admission.prefill());
            recorded.add(call);
            Heartbeats.Stripped s = Heartbeats.strip(call.arguments());
            o.heartbeat |= s.requested();
            int seen = turn.seenCalls.merge(call.name() + '\u0000' + s.key(), 1, Integer::sum);
            if (seen >= settings.loopBreakerThreshold()) {
                o.breakerTripped = true;
                broken[i] = true;
                results[i] = ToolResult.withoutEffects(call, ToolStatus.REFUSED, "Loop breaker: you called '" + call.name()
                        + "' with the same arguments " + seen + " times while answering this message, so it was not run "
                        + "again and your turn was stopped. Next time, use the result you already have, change the "
                        + "arguments, or answer the user.");
                continue;
            }
            ToolCall stripped = new ToolCall(call.id(), call.name(), s.arguments() == null ? "" : s.arguments());
            toRun.add(stripped);
            toRunIndex.add(i);
            settings.events().accept(new AgentEvent.ToolCallStarted(scope, stripped));
        }
        turn.wrote.accept(List.of(settings.append(scope, NewMessage.assistant(turn.session, assistant.text(), recorded.stream()
                .map(c -> new MessageToolCall(c.id(), c.name(), c.arguments())).toList(), Reasonings.stored(assistant.reasoning())))));
        Set<String> ranByClient = Set.of();
        if (!toRun.isEmpty()) {
            List<ToolResult> ran;
            Optional<ClientTools> client = turn.client.filter(c -> toRun.stream().anyMatch(call -> c.has(call.name())));
            if (client.isPresent()) {
                ClientRound.Results round = ClientRound.run(client.get(), executor, toolContext(turn, step), scope, toRun,
                        request -> settings.events().accept(new AgentEvent.ApprovalRequested(scope, request)));
                ran = round.results();
                ranByClient = round.ranByClient();
            } else if (inUnit) {
                ran = attempts(toRun, toolContext(turn, step));
            } else {
                ran = executor.executeAll(toRun, toolContext(turn, step));
            }
            for (int k = 0; k < ran.size(); k++) {
                results[toRunIndex.get(k)] = ran.get(k);
            }
        }
        for (int i = 0; i < n; i++) {
            if (admitted[i]) {
                ToolResult r = results[i];
                Optional<String> ruleBroken = turn.rules.settle(r.toolName(), r.status() == ToolStatus.SUCCESS, r.content());
                if (ruleBroken.isPresent()) {
                    results[i] = r.asError(ToolStatus.TOOL_ERROR, ruleBroken.get());
                }
            }
        }
        turn.rules.endStep();
        o.ran = results;
        o.broken = broken;
        o.ranByClient = ranByClient;
        return o;
    }

    /** Runs each call as an attempt that keeps its writes only if it succeeds; a success whose write failed is an error. */
    private List<ToolResult> attempts(List<ToolCall> calls, ToolContext context) {
        List<ToolResult> ran = new ArrayList<>(calls.size());
        for (ToolCall call : calls) {
            Attempt<ToolResult> a = settings.store().attempt(() -> executor.execute(call, context),
                    r -> r.status() == ToolStatus.SUCCESS);
            ToolResult r = a.result();
            if (a.failure().isPresent() && r.status() == ToolStatus.SUCCESS) {
                r = r.asError(ToolStatus.TOOL_ERROR, "The call failed and nothing it wrote was kept: "
                        + a.failure().get().getMessage());
            }
            ran.add(r);
        }
        return ran;
    }

    /**
     * Records the results of the calls {@link #run} ran (and the calls their programs made) and completes the outcome;
     * the stream events of the results wait in {@link Outcome#returns} for the caller to deliver once its transaction
     * committed (a slow listener never holds the store's write lock).
     */
    Outcome store(Turn turn, int step, Outcome o) {
        ToolResult[] results = o.ran;
        boolean[] broken = o.broken;
        Set<String> ranByClient = o.ranByClient;
        int n = results.length;
        List<NewMessage> batch = new ArrayList<>(n);
        for (ToolResult r : results) {
            batch.add(NewMessage.tool(turn.session, r.callId(), contentForModel(r), outcome(r)));
        }
        turn.wrote.accept(settings.appendAll(scope, batch));
        recordProgramCalls(turn, o);

        for (int i = 0; i < n; i++) {
            ToolResult r = results[i];
            o.results.add(r);
            settings.events().accept(new AgentEvent.ToolCallFinished(scope, r));
            o.returns.add(new AgentStreamEvent.ToolReturn(step, r));
            // What a call did, it did, even when a rule then rejected its output.
            r.userMessage().ifPresent(text -> {
                o.messagedUser = true;
                turn.reply(text);
            });
            o.agentAnswered |= r.has(ToolEffect.AGENT_ANSWERED);
            o.memoryEdited |= r.has(ToolEffect.MEMORY_EDITED);
            if (ranByClient.contains(r.callId())) {
                // As in Letta, the turn goes on after the client answered, whatever its result; the client's failures
                // are not the model's mistakes to correct.
                o.continued |= r.status() != ToolStatus.CANCELLED;
                continue;
            }
            if (r.status() != ToolStatus.SUCCESS) {
                // The loop breaker's refusal stops the turn by itself; it is not a mistake to correct.
                o.anyFailed |= !broken[i];
                continue;
            }
            o.terminal |= turn.rules.terminal(r.toolName());
            o.continued |= turn.rules.continues(r.toolName());
        }
        return o;
    }

    /** The pipeline this step runs calls through. */
    ToolExecutor executor() {
        return executor;
    }

    /**
     * Stores the calls the step's programs made ({@code execute_code}), after the step's results so that every call
     * the model sees is followed by its result: each as an assistant message with that one call, then its result.
     * What they did counts as what the step did (a message to the user, a memory edit).
     */
    private void recordProgramCalls(Turn turn, Outcome o) {
        List<Turn.ProgramCall> made = turn.takeProgramCalls();
        if (made.isEmpty()) {
            return;
        }
        List<NewMessage> batch = new ArrayList<>(made.size() * 2);
        for (Turn.ProgramCall p : made) {
            batch.add(NewMessage.assistant(turn.session, "", List.of(new MessageToolCall(p.call().id(), p.call().name(),
                    p.call().arguments()))));
            batch.add(NewMessage.tool(turn.session, p.result().callId(), contentForModel(p.result()), outcome(p.result())));
            p.result().userMessage().ifPresent(text -> {
                o.messagedUser = true;
                turn.reply(text);
            });
            o.agentAnswered |= p.result().has(ToolEffect.AGENT_ANSWERED);
            o.memoryEdited |= p.result().has(ToolEffect.MEMORY_EDITED);
        }
        turn.wrote.accept(settings.appendAll(scope, batch));
    }

    /** How a call ended and what it did, as stored with its result. */
    static ToolOutcome outcome(ToolResult r) {
        ToolOutcome.Status status = switch (r.status()) {
            case SUCCESS -> ToolOutcome.Status.OK;
            case REFUSED -> ToolOutcome.Status.REFUSED;
            case DENIED_BY_POLICY, APPROVAL_DENIED -> ToolOutcome.Status.DENIED;
            case CANCELLED -> ToolOutcome.Status.CANCELLED;
            case UNKNOWN_TOOL, INVALID_ARGUMENTS, TIMED_OUT, TOOL_ERROR, FAILED -> ToolOutcome.Status.ERROR;
        };
        Set<ToolOutcome.Effect> effects = EnumSet.noneOf(ToolOutcome.Effect.class);
        for (ToolEffect e : r.effects()) {
            effects.add(switch (e) {
                case MESSAGE_TO_USER -> ToolOutcome.Effect.MESSAGE_TO_USER;
                case AGENT_ANSWERED -> ToolOutcome.Effect.AGENT_ANSWERED;
                case MEMORY_EDITED -> ToolOutcome.Effect.MEMORY_EDITED;
            });
        }
        return new ToolOutcome(status, effects);
    }

    /** The call with the rule's prefilled arguments put over the model's (arguments that are not an object stay as they are). */
    private static ToolCall prefilled(ToolCall call, Map<String, Object> prefill) {
        if (prefill.isEmpty()) {
            return call;
        }
        try {
            JsonNode node = Heartbeats.JSON.readTree(call.arguments() == null || call.arguments().isBlank() ? "{}" : call.arguments());
            if (!(node instanceof ObjectNode args)) {
                return call;
            }
            prefill.forEach((k, v) -> args.set(k, Heartbeats.JSON.valueToTree(v)));
            return new ToolCall(call.id(), call.name(), args.toString());
        } catch (JacksonException e) {
            return call;
        }
    }

    /**
     * Pairs every tool call with a result. A step records its calls, runs them, then records all their
     * results in one transaction, so calls can only be left unanswered by a crash (or any failure) in
     * between, and then they are in the newest message: it gets an interrupted result for each call,
     * so the history the model sees always pairs. {@code inContext}: every in-context message, as just read.
     */
    void recordInterruptedCalls(Turn turn, List<ConversationMessage> inContext) {
        if (inContext.isEmpty() || inContext.getLast().toolCalls().isEmpty()) {
            return;
        }
        ConversationMessage m = inContext.getLast();
        turn.wrote.accept(settings.appendAll(scope, m.toolCalls().stream()
                .map(c -> NewMessage.tool(m.sessionId(), c.id(), Prompts.ERROR_PREFIX + INTERRUPTED,
                        ToolOutcome.of(ToolOutcome.Status.CANCELLED))).toList()));
    }

    static String contentForModel(ToolResult r) {
        return r.status() == ToolStatus.SUCCESS ? r.content() : Prompts.ERROR_PREFIX + r.content();
    }

    private ToolContext toolContext(Turn turn, int step) {
        // A companion's tools act on its agent's memory, and say who acted.
        ToolContext.Builder b = ToolContext.builder().userId(agent.userId()).agentId(agent.memoryScope().agentId())
                .sessionId(turn.session)
                .cancellation(turn.token)
                .chatModel(settings.models().apply(agent.model()));
        if (turn.streaming()) {
            // Reports come from the calls' threads (read-only calls run at once): one at a time to the listener.
            Object oneAtATime = new Object();
            b.progressListener((call, chunk) -> {
                synchronized (oneAtATime) {
                    turn.emit(new AgentStreamEvent.ToolProgress(step, call.id(), call.name(), chunk));
                }
            });
        }
        agent.toolAccess().workspace().or(settings::workspaceRoot).ifPresent(b::workspaceRoot);
        agent.actsFor().ifPresent(a -> b.actor("sleep-time agent '" + agent.id() + "'"));
        Optional<ApprovalHandler> handler = settings.approvalHandler();
        handler.ifPresent(h -> b.approvalHandler(request -> {
            settings.events().accept(new AgentEvent.ApprovalRequested(scope, request));
            return h.requestApproval(request);
        }));
        return b.build();
    }
}
