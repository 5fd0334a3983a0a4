package dev.engram.agents;

import dev.engram.framework.ApprovalHandler;
import dev.engram.framework.CancellationToken;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatOptions;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ContextLengthExceededException;
import dev.engram.framework.model.ModelCancelledException;
import dev.engram.framework.model.ModelException;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.tools.BuiltinTools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;

/**
 * A loaded agent: send it a message and it thinks, uses its tools and answers, remembering
 * everything in the store. Get one from {@link AgentRuntime#create} or {@link AgentRuntime#agent}.
 *
 * <h2>One step at a time</h2>
 * An agent works on one message at a time. A second {@link #send} while one is in progress
 * <b>waits</b> for it (fairly, in arrival order) and then runs, so that no message is lost and each
 * sees the state the previous one left. A message from another agent waits at most the runtime's
 * agent-reply timeout and then fails, so that agents waiting on each other cannot hang forever.
 *
 * <h2>The loop</h2>
 * Each step compiles the prompt (system prompt, memory blocks with their {@code chars/limit} and
 * permission, memory statistics, the in-context messages), calls the model, runs the tool calls
 * through the pipeline (read-only calls in parallel) and persists the assistant message and every
 * tool result in one transaction. The agent continues while a call asks for a heartbeat, a call
 * failed (so the model can correct itself, at most the runtime's correction budget in a row), a
 * memory edit was made, or another agent (or a subagent) answered; it stops on
 * {@code send_message} to its user, on a text-only answer, at the step cap, or when the loop
 * breaker sees the same call with the same arguments too often. See {@link AgentStopReason}.
 *
 * <p>Thread-safe.
 */
public final class Agent {
    /** Tool results of failed calls start with this in the prompt and in recall memory. */
    static final String ERROR_PREFIX = "Error: ";
    static final int MAX_IN_CONTEXT = 100_000;
    private static final String DEFAULT_SESSION = "default";

    private final AgentSettings settings;
    private final ActiveTurns turns;
    private final AgentDefinition definition;
    private final Scope scope;
    private final ToolExecutor executor;
    private final List<ToolDefinition> modelTools;
    private final TokenCounter tokens;
    private final int toolTokens;
    private final Map<Long, Integer> messageTokens = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, Integer> textTokens = new java.util.concurrent.ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock(true);

    Agent(AgentDefinition definition, ToolExecutor executor, TokenCounter tokens, AgentSettings settings, ActiveTurns turns) {
        this.settings = settings;
        this.turns = turns;
        this.definition = definition;
        this.scope = definition.scope();
        this.executor = executor;
        this.tokens = tokens;
        this.modelTools = executor.registry().definitions().stream()
                .filter(d -> executor.policy().permits(d.name()))
                .map(Heartbeats::withHeartbeat).toList();
        int t = 0;
        for (ToolDefinition d : modelTools) {
            t += tokens.count(d.name()) + tokens.count(d.description()) + tokens.count(d.parameters().toString()) + 8;
        }
        this.toolTokens = t;
    }

    public String id() {
        return definition.id();
    }

    public String name() {
        return definition.name();
    }

    public String userId() {
        return definition.userId();
    }

    public Scope scope() {
        return scope;
    }

    public AgentDefinition definition() {
        return definition;
    }

    /** What this agent was given by its runtime. */
    AgentSettings settings() {
        return settings;
    }

    /** Sends a user message in the default session and returns when the agent yields or stops. */
    public AgentResponse send(String message) {
        return send(DEFAULT_SESSION, message);
    }

    /**
     * Sends a user message and returns when the agent yields or stops. Waits while another message is
     * in progress.
     *
     * @throws IllegalArgumentException if the message or session is blank (nothing is stored)
     * @throws AgentException           if the model fails; the messages stored until then stay consistent
     */
    public AgentResponse send(String sessionId, String message) {
        checkText(sessionId, "session id");
        checkText(message, "message");
        settings.checkOpen();
        lock.lock();
        try {
            return run(new Turn(sessionId, List.of(id()), Optional.empty()), message);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Cancels the step in progress, if any: a running model call or tool is interrupted and the
     * response's stop reason is {@link AgentStopReason#CANCELLED}. Messages already stored stay.
     */
    public void cancel() {
        turns.of(scope).ifPresent(Turn::cancel);
    }

    /** Whether a message is being worked on. */
    public boolean isBusy() {
        return lock.isLocked();
    }

    /** The prompt the next step would send, without the new message. */
    public CompiledPrompt compilePrompt() {
        return compile(inContext());
    }

    /** The messages in the context window, oldest first (summaries of evicted messages are system messages). */
    public List<ConversationMessage> inContextMessages() {
        return inContext();
    }

    /** Delivers a message from another agent (or a parent) and waits for the reply. */
    AgentResponse receiveFromAgent(Turn sender, String fromAgentId, String text) {
        Duration wait = settings.agentReplyTimeout();
        boolean locked;
        try {
            locked = lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new dev.engram.framework.ToolException("Delivery to agent '" + id() + "' was cancelled.");
        }
        if (!locked) {
            throw new dev.engram.framework.ToolException("Agent '" + id() + "' has been busy for " + wait.toSeconds()
                    + " s and cannot take your message now; try again later or tell the user.");
        }
        try {
            List<String> chain = new ArrayList<>(sender.chain);
            chain.add(id());
            return run(new Turn(sender.session, chain, Optional.of(fromAgentId)),
                    "[Message from agent '" + fromAgentId + "'] " + text);
        } finally {
            lock.unlock();
        }
    }

    private List<ConversationMessage> inContext() {
        return settings.store().messages().list(scope, MessageQuery.inContext().newest(MAX_IN_CONTEXT));
    }

    // ---------------------------------------------------------------------------------------------
    // The loop

    private AgentResponse run(Turn turn, String message) {
        MemoryStore store = settings.store();
        turns.begin(scope, turn);
        turn.thread = Thread.currentThread();
        List<ToolResult> allResults = new ArrayList<>();
        Map<String, Integer> seenCalls = new HashMap<>();
        long inTokens = 0;
        long outTokens = 0;
        int steps = 0;
        int failingSteps = 0;
        try {
            recordInterruptedCalls();
            store.messages().append(scope, NewMessage.user(turn.session, message));
            while (true) {
                if (turn.token.isCancelled()) {
                    return turn.response(AgentStopReason.CANCELLED, steps, allResults, inTokens, outTokens, "");
                }
                if (steps == definition.maxSteps()) {
                    return turn.response(AgentStopReason.STEP_CAP, steps, allResults, inTokens, outTokens, "");
                }
                steps++;
                settings.events().accept(new AgentEvent.StepStarted(scope, steps));
                ChatResponse response;
                try {
                    response = callModel(turn);
                } catch (ModelCancelledException e) {
                    settings.events().accept(new AgentEvent.StepFinished(scope, steps, Optional.of(AgentStopReason.CANCELLED)));
                    return turn.response(AgentStopReason.CANCELLED, steps, allResults, inTokens, outTokens, "");
                }
                inTokens += response.usage().inputTokens();
                outTokens += response.usage().outputTokens();
                ChatMessage.Assistant assistant = response.message();

                if (assistant.toolCalls().isEmpty()) {
                    if (!assistant.text().isBlank()) {
                        store.messages().append(scope, NewMessage.assistant(turn.session, assistant.text(), List.of()));
                    }
                    settings.events().accept(new AgentEvent.StepFinished(scope, steps, Optional.of(AgentStopReason.END_TURN)));
                    return turn.response(AgentStopReason.END_TURN, steps, allResults, inTokens, outTokens, assistant.text());
                }

                StepOutcome outcome = runTools(turn, assistant, seenCalls);
                allResults.addAll(outcome.results);
                Optional<AgentStopReason> stop = decide(turn, outcome, failingSteps);
                failingSteps = outcome.anyFailed ? failingSteps + 1 : 0;
                settings.events().accept(new AgentEvent.StepFinished(scope, steps, stop));
                if (stop.isPresent()) {
                    return turn.response(stop.get(), steps, allResults, inTokens, outTokens, "");
                }
            }
        } finally {
            turns.end(scope, turn);
            turn.thread = null;
            if (Thread.interrupted() && !turn.token.isCancelled()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Optional<AgentStopReason> decide(Turn turn, StepOutcome o, int failingStepsBefore) {
        if (o.yielded) {
            return Optional.of(AgentStopReason.YIELDED);
        }
        if (turn.token.isCancelled()) {
            return Optional.of(AgentStopReason.CANCELLED);
        }
        if (o.breakerTripped) {
            return Optional.of(AgentStopReason.LOOP_BREAKER);
        }
        if (o.anyFailed) {
            return failingStepsBefore + 1 > settings.maxCorrections()
                    ? Optional.of(AgentStopReason.TOO_MANY_ERRORS) : Optional.empty();
        }
        if (o.heartbeat || o.memoryEdited || o.agentAnswered) {
            return Optional.empty();
        }
        return Optional.of(AgentStopReason.NO_HEARTBEAT);
    }

    private ChatResponse callModel(Turn turn) {
        ChatModel model = settings.models().apply(definition.model());
        CompiledPrompt prompt = promptForStep(turn, false);
        try {
            return model.chat(new ChatRequest(prompt.messages(), prompt.tools(), ChatOptions.defaults()));
        } catch (ContextLengthExceededException e) {
            // The provider counts differently from us: compact now and try once more.
            CompiledPrompt smaller = promptForStep(turn, true);
            try {
                return model.chat(new ChatRequest(smaller.messages(), smaller.tools(), ChatOptions.defaults()));
            } catch (ContextLengthExceededException again) {
                throw new AgentException("The prompt of agent '" + id() + "' is still too long for model '"
                        + definition.model() + "' after compacting (" + smaller.tokens() + " tokens by our count); "
                        + "lower contextWindowTokens in the agent's definition to the model's real window.", again);
            }
        } catch (ModelCancelledException e) {
            throw e;
        } catch (ModelException e) {
            throw new AgentException("Agent '" + id() + "' could not reach its model " + definition.model() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Compiles, compacting first when over the window (or when {@code forceCompaction}). */
    private CompiledPrompt promptForStep(Turn turn, boolean forceCompaction) {
        List<ConversationMessage> messages = inContext();
        CompiledPrompt prompt = compile(messages);
        if (forceCompaction || prompt.tokens() > definition.contextWindowTokens()) {
            new Compactor(this, settings).compact(turn.session, messages, prompt.tokens());
            prompt = compile(inContext());
            if (prompt.tokens() > definition.contextWindowTokens()) {
                throw new AgentException("Agent '" + id() + "' needs " + prompt.tokens() + " tokens for its system prompt, "
                        + "memory blocks and current turn, more than its context window of "
                        + definition.contextWindowTokens() + " even after compacting; raise contextWindowTokens or "
                        + "shrink its blocks.");
            }
        }
        if (prompt.memoryPressure()) {
            settings.events().accept(new AgentEvent.MemoryPressure(scope, prompt.tokens(), definition.contextWindowTokens()));
        }
        return prompt;
    }

    /** The prompt over these in-context messages, with the memory-pressure warning when it is past the threshold. */
    private CompiledPrompt compile(List<ConversationMessage> messages) {
        return Prompts.compile(this, settings.store(), messages, modelTools, toolTokens, settings.memoryPressureThreshold());
    }

    int tokens(String text) {
        return tokens.count(text);
    }

    /** The tokens of one stored message, cached by id (messages never change). */
    int tokens(ConversationMessage m) {
        return messageTokens.computeIfAbsent(m.id(), id -> {
            int n = tokens.count(m.content()) + 4;
            for (MessageToolCall c : m.toolCalls()) {
                n += tokens.count(c.name()) + tokens.count(c.arguments()) + 4;
            }
            return n;
        });
    }

    /** Token counts of texts that repeat from step to step (instructions, rendered blocks), by text. */
    int cachedTokens(String text) {
        Integer n = textTokens.get(text);
        if (n == null) {
            n = tokens.count(text);
            if (textTokens.size() > 64) {
                textTokens.clear();
            }
            textTokens.put(text, n);
        }
        return n;
    }

    void forgetTokens(List<Long> ids) {
        ids.forEach(messageTokens::remove);
    }

    private StepOutcome runTools(Turn turn, ChatMessage.Assistant assistant, Map<String, Integer> seenCalls) {
        StepOutcome o = new StepOutcome();
        List<ToolCall> calls = assistant.toolCalls();
        ToolResult[] results = new ToolResult[calls.size()];
        List<ToolCall> toRun = new ArrayList<>();
        List<Integer> toRunIndex = new ArrayList<>();
        boolean[] toAgent = new boolean[calls.size()];
        for (int i = 0; i < calls.size(); i++) {
            ToolCall call = calls.get(i);
            Heartbeats.Stripped s = Heartbeats.strip(call.arguments());
            o.heartbeat |= s.requested();
            toAgent[i] = BuiltinTools.SEND_MESSAGE.equals(call.name()) && hasTarget(s.arguments());
            int seen = seenCalls.merge(call.name() + '\u0000' + s.key(), 1, Integer::sum);
            if (seen >= settings.loopBreakerThreshold()) {
                o.breakerTripped = true;
                results[i] = new ToolResult(call.id(), call.name(), "Loop breaker: you called '" + call.name()
                        + "' with the same arguments " + seen + " times while answering this message, so it was not run "
                        + "again and your turn was stopped. Next time, use the result you already have, change the "
                        + "arguments, or answer the user with send_message.", ToolStatus.TOOL_ERROR, Duration.ZERO, false, 0);
                continue;
            }
            ToolCall stripped = new ToolCall(call.id(), call.name(), s.arguments() == null ? "" : s.arguments());
            toRun.add(stripped);
            toRunIndex.add(i);
            settings.events().accept(new AgentEvent.ToolCallStarted(scope, stripped));
        }
        // The calls are recorded before any of them runs, so that a side effect never commits without a
        // record of the call that made it; their results follow in one transaction when all have run.
        settings.store().messages().append(scope, NewMessage.assistant(turn.session, assistant.text(), calls.stream()
                .map(c -> new MessageToolCall(c.id(), c.name(), c.arguments())).toList()));
        if (!toRun.isEmpty()) {
            List<ToolResult> ran = executor.executeAll(toRun, toolContext(turn));
            for (int k = 0; k < ran.size(); k++) {
                results[toRunIndex.get(k)] = ran.get(k);
            }
        }

        List<NewMessage> batch = new ArrayList<>(calls.size());
        for (ToolResult r : results) {
            batch.add(NewMessage.tool(turn.session, r.callId(), contentForModel(r)));
        }
        settings.store().messages().appendAll(scope, batch);

        for (int i = 0; i < results.length; i++) {
            ToolResult r = results[i];
            o.results.add(r);
            settings.events().accept(new AgentEvent.ToolCallFinished(scope, r));
            if (r.status() != ToolStatus.SUCCESS) {
                if (!(o.breakerTripped && r.content().startsWith("Loop breaker"))) {
                    o.anyFailed = true;
                }
                continue;
            }
            if (BuiltinTools.SEND_MESSAGE.equals(r.toolName())) {
                if (toAgent[i]) {
                    o.agentAnswered = true;
                } else {
                    o.yielded = true;
                    turn.replies.add(messageText(calls.get(i).arguments()));
                }
            } else if (SubagentTool.NAME.equals(r.toolName())) {
                o.agentAnswered = true;
            } else if (isMemoryEdit(r.toolName(), calls.get(i).arguments())) {
                o.memoryEdited = true;
            }
        }
        return o;
    }

    /** What an interrupted call's result says, to the model and in recall memory. */
    static final String INTERRUPTED = "The call was interrupted before it finished (the agent stopped); it may or may "
            + "not have taken effect. Check before repeating it.";

    /**
     * Pairs every tool call with a result. A step records its calls, runs them, then records all their
     * results in one transaction, so calls can only be left unanswered by a crash (or any failure) in
     * between, and then they are in the newest message: it gets an interrupted result for each call,
     * so the history the model sees always pairs.
     */
    void recordInterruptedCalls() {
        List<ConversationMessage> newest = settings.store().messages().list(scope, MessageQuery.inContext().newest(1));
        if (newest.isEmpty() || newest.getFirst().toolCalls().isEmpty()) {
            return;
        }
        ConversationMessage m = newest.getFirst();
        settings.store().messages().appendAll(scope, m.toolCalls().stream()
                .map(c -> NewMessage.tool(m.sessionId(), c.id(), ERROR_PREFIX + INTERRUPTED)).toList());
    }

    static String contentForModel(ToolResult r) {
        return r.status() == ToolStatus.SUCCESS ? r.content() : ERROR_PREFIX + r.content();
    }

    /** The text a successful {@code send_message} to the user sent: the reply of this turn. */
    private static String messageText(String arguments) {
        return Heartbeats.JSON.readTree(arguments).path("message").asString("");
    }

    private static boolean hasTarget(String arguments) {
        try {
            JsonNode n = Heartbeats.JSON.readTree(arguments);
            return n.hasNonNull("target_agent_id") && !n.get("target_agent_id").asString("").isBlank();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean isMemoryEdit(String tool, String arguments) {
        return switch (tool) {
            case "memory_save", "memory_update", "memory_delete" -> true;
            case "block" -> {
                try {
                    String op = Heartbeats.JSON.readTree(arguments).path("operation").asString("");
                    yield !op.equals("view") && !op.equals("list");
                } catch (RuntimeException e) {
                    yield false;
                }
            }
            default -> false;
        };
    }

    private ToolContext toolContext(Turn turn) {
        ToolContext.Builder b = ToolContext.builder().userId(userId()).agentId(id()).sessionId(turn.session)
                .cancellation(turn.token);
        settings.workspaceRoot().ifPresent(b::workspaceRoot);
        Optional<ApprovalHandler> handler = settings.approvalHandler();
        handler.ifPresent(h -> b.approvalHandler(request -> {
            settings.events().accept(new AgentEvent.ApprovalRequested(scope, request));
            return h.requestApproval(request);
        }));
        return b.build();
    }

    private static void checkText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be null or blank");
        }
    }

    @Override
    public String toString() {
        return "Agent[" + definition.name() + " (" + scope + ")]";
    }

    /** What one step's tool calls did. */
    private static final class StepOutcome {
        final List<ToolResult> results = new ArrayList<>();
        boolean heartbeat;
        boolean yielded;
        boolean agentAnswered;
        boolean memoryEdited;
        boolean anyFailed;
        boolean breakerTripped;
    }

    /**
     * One message being worked on: where it came from, and what the agent said to its user so far
     * (written only by the agent's own loop, from its successful {@code send_message} calls).
     */
    static final class Turn {
        final String session;
        /** The agents waiting on this turn, outermost first, ending with this agent. */
        final List<String> chain;
        final Optional<String> fromAgentId;
        final CancellationToken token = CancellationToken.create();
        private final List<String> replies = new ArrayList<>();
        volatile Thread thread;

        Turn(String session, List<String> chain, Optional<String> fromAgentId) {
            this.session = Objects.requireNonNull(session);
            this.chain = List.copyOf(chain);
            this.fromAgentId = fromAgentId;
        }

        void cancel() {
            token.cancel();
            Thread t = thread;
            if (t != null) {
                t.interrupt();
            }
        }

        AgentResponse response(AgentStopReason reason, int steps, List<ToolResult> results, long in, long out,
                String finalText) {
            String reply = replies.isEmpty() ? finalText : String.join("\n\n", replies);
            return new AgentResponse(reply.isBlank() ? Optional.empty() : Optional.of(reply), reason, steps, results, in, out);
        }
    }
}
