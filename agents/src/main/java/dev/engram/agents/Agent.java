package dev.engram.agents;

import dev.engram.framework.ApprovalHandler;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolResult;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatOptions;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ContextLengthExceededException;
import dev.engram.framework.model.ModelCancelledException;
import dev.engram.framework.model.ModelException;
import dev.engram.framework.model.ModelTimeoutException;
import dev.engram.framework.model.ToolChoice;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.MessageImage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

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
 * tool result in one transaction. What a call did is what its result says ({@link dev.engram.framework.ToolEffect}).
 * The loop follows the definition's {@link AgentType#loop()}: a {@code letta_v1_agent}
 * ({@link AgentType.Loop#UNTIL_REPLY}) continues after every tool call until the model answers without one,
 * and that answer is the reply; a MemGPT agent ({@link AgentType.Loop#HEARTBEATS}) continues while a call
 * asks for a heartbeat, a memory edit was made, or another agent (or a subagent) answered. In both, a call
 * that failed lets the model correct itself (at most the runtime's correction budget in a row), and the turn
 * stops on a message that reached the user, on a text-only answer, at the step cap, or when the loop
 * breaker sees the same call with the same arguments too often. See {@link AgentStopReason}.
 *
 * <h2>Tool rules and streaming</h2>
 * The definition's {@link ToolRule}s (Letta's) decide which tools each step offers and may end or
 * continue the turn; a call that breaks one is refused with an error result naming what is allowed.
 * {@link #stream} delivers the turn as it happens ({@link AgentStreamEvent}) and stores exactly what
 * {@link #send} stores.
 *
 * <p>Thread-safe.
 */
public final class Agent {
    static final int MAX_IN_CONTEXT = 100_000;
    /** Starts a message the runtime adds to the conversation: it is not from the user. */
    static final String RUNTIME_NOTE = "[Automated message from the agent runtime, not from the user] ";
    private static final String DEFAULT_SESSION = "default";

    private final AgentSettings settings;
    private final ActiveTurns turns;
    private volatile AgentDefinition definition;
    private final Scope scope;
    private final InContextMessages context;
    /** The agent's tools; replaced whole when they change ({@link #retool}), read once per step. */
    private volatile AgentTools tools;
    /** Token counts of what goes into this agent's prompts. */
    final PromptTokens tokens;
    /** The parts of its system prompt as last rendered. */
    final PromptParts parts;
    private final ReentrantLock lock = new ReentrantLock(true);
    /** Sessions whose context the agent asked to swap (trigger_hot_swap): compacted before the session's next model call. */
    private final Set<String> hotSwaps = ConcurrentHashMap.newKeySet();

    Agent(AgentDefinition definition, ToolExecutor executor, TokenCounter tokens, AgentSettings settings, ActiveTurns turns) {
        this.settings = settings;
        this.turns = turns;
        this.definition = definition;
        this.scope = definition.scope();
        this.tokens = new PromptTokens(tokens);
        this.parts = new PromptParts(this.tokens);
        // Each stretch of the change log the context reads tells the kept prompt parts what may have changed.
        this.context = new InContextMessages(settings.store(), scope, MAX_IN_CONTEXT,
                events -> parts.seen(events, this.definition.memoryScope()));
        this.tools = AgentTools.of(definition, settings, executor, this.tokens);
    }

    /** The pipeline this agent's tool calls run through now. */
    /**
     * Runs one of this agent's tools outside any turn, as a call of its model would run: through its tool pipeline
     * (lookup among its tools, policy, argument validation, approval, timeout, truncation), on its memory. Nothing is
     * added to its history. Never throws: an unknown tool or bad arguments are an error result.
     *
     * @param approvals answers the approval the call needs, if it needs one
     */
    public ToolResult runTool(String toolName, String argumentsJson, ApprovalHandler approvals) {
        Objects.requireNonNull(toolName, "tool name must not be null");
        Objects.requireNonNull(argumentsJson, "arguments must not be null");
        ToolContext context = ToolContext.builder().userId(userId()).agentId(definition.memoryScope().agentId())
                .approvalHandler(Objects.requireNonNull(approvals, "approvals must not be null")).build();
        return executor().execute(ToolCall.of(toolName, argumentsJson), context);
    }

    ToolExecutor executor() {
        return tools.step().executor();
    }

    /**
     * Gives the agent new tools (its definition changed, or the runtime's tools did); the next step
     * offers them. A step in progress finishes with the tools it started with.
     */
    void retool(AgentDefinition changed, ToolExecutor executor) {
        this.tools = AgentTools.of(changed, settings, executor, tokens);
        this.definition = changed;
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
        return start(sessionId, message, List.of(), null, Optional.empty());
    }

    /**
     * {@link #send(String, String)} with tools the turn's client runs itself, offered to the model for this turn
     * only; a call to one waits for the client's result ({@link ClientTools}).
     */
    public AgentResponse send(String sessionId, String message, ClientTools client) {
        return start(sessionId, message, List.of(), null, Optional.of(Objects.requireNonNull(client, "client must not be null")));
    }

    /**
     * Sends a user message that shows images (after its text, which may then be empty), as
     * {@link #send(String, String)} does; the images are stored with the message.
     *
     * @throws IllegalArgumentException if the session is blank, the message is blank and has no images, or the agent's
     *                                  model cannot take the images ({@link #checkImages}); nothing is stored
     */
    public AgentResponse send(String sessionId, String message, List<MessageImage> images) {
        return start(sessionId, message, images, null, Optional.empty());
    }

    /** {@link #send(String, String, List)} with the turn's {@link ClientTools}. */
    public AgentResponse send(String sessionId, String message, List<MessageImage> images, ClientTools client) {
        return start(sessionId, message, images, null, Optional.of(Objects.requireNonNull(client, "client must not be null")));
    }

    /** {@link #stream(String, String, AgentStreamListener)} in the default session. */
    public AgentResponse stream(String message, AgentStreamListener listener) {
        return stream(DEFAULT_SESSION, message, listener);
    }

    /**
     * Sends a user message as {@link #send(String, String)} does, and delivers what happens to
     * {@code listener} as it happens: the model's text, reasoning and tool-call fragments as the
     * provider streams them, the reply a {@code send_message} call is writing, usage, tool returns and
     * step boundaries, then {@link AgentStreamEvent.Completed}. The model is called through its
     * streaming API; what is stored is exactly what {@code send} stores. {@link #cancel()} (or a
     * listener that throws) stops the stream at the next fragment; no call is left without a result.
     *
     * @throws IllegalArgumentException if the message or session is blank (nothing is stored)
     * @throws NullPointerException     if the listener is null (nothing is stored)
     * @throws AgentException           if the model fails; the messages stored until then stay consistent
     */
    public AgentResponse stream(String sessionId, String message, AgentStreamListener listener) {
        return start(sessionId, message, List.of(), Objects.requireNonNull(listener, "listener must not be null"), Optional.empty());
    }

    /** {@link #stream(String, String, AgentStreamListener)} with the turn's {@link ClientTools}. */
    public AgentResponse stream(String sessionId, String message, ClientTools client, AgentStreamListener listener) {
        return stream(sessionId, message, List.of(), client, listener);
    }

    /** {@link #stream(String, String, AgentStreamListener)} of a message that shows images, as {@link #send(String, String, List)}. */
    public AgentResponse stream(String sessionId, String message, List<MessageImage> images, AgentStreamListener listener) {
        return start(sessionId, message, images, Objects.requireNonNull(listener, "listener must not be null"), Optional.empty());
    }

    /** {@link #stream(String, String, List, AgentStreamListener)} with the turn's {@link ClientTools}. */
    public AgentResponse stream(String sessionId, String message, List<MessageImage> images, ClientTools client,
            AgentStreamListener listener) {
        return start(sessionId, message, images, Objects.requireNonNull(listener, "listener must not be null"),
                Optional.of(Objects.requireNonNull(client, "client must not be null")));
    }

    /**
     * Refuses images this agent's model cannot take: any image when it cannot see, an image by address when it takes
     * only data. A caller checks before it stores anything (the send methods do).
     *
     * @throws IllegalArgumentException naming the model and what to send instead
     */
    public void checkImages(List<MessageImage> images) {
        if (images.isEmpty()) {
            return;
        }
        ChatModel model = settings.models().apply(definition.model());
        if (!model.supportsImages()) {
            throw new IllegalArgumentException("Agent '" + id() + "''s model " + definition.model() + " cannot see images; "
                    + "send the message without them, or give the agent a model that takes images");
        }
        if (!model.supportsImageUrls() && images.stream().anyMatch(i -> i instanceof MessageImage.Url)) {
            throw new IllegalArgumentException("Agent '" + id() + "''s model " + definition.model() + " takes images as "
                    + "data, not by URL; send the image's bytes (base64) instead of its address");
        }
    }

    private AgentResponse start(String sessionId, String message, List<MessageImage> images, AgentStreamListener listener,
            Optional<ClientTools> client) {
        checkText(sessionId, "session id");
        Objects.requireNonNull(images, "images must not be null");
        if (images.isEmpty()) {
            checkText(message, "message");
        } else {
            Objects.requireNonNull(message, "message must not be null");
            checkImages(images);
        }
        settings.checkOpen();
        settings.hooks().beforeTurn(definition);
        AgentResponse response;
        lock.lock();
        try {
            AgentDefinition hooked = definition;
            TurnHookRunner.started(settings.turnHooks(), hooked, sessionId, message);
            AgentResponse answered = null;
            try {
                Turn turn = new Turn(sessionId, List.of(id()), Optional.empty(), definition.toolRules(), listener, client);
                answered = run(turn, message, images);
                turn.emit(new AgentStreamEvent.Completed(answered));
            } finally {
                TurnHookRunner.ended(settings.turnHooks(), hooked, sessionId, Optional.ofNullable(answered));
            }
            response = answered;
        } finally {
            lock.unlock();
        }
        settings.hooks().afterTurn(definition);
        return response;
    }

    /**
     * Cancels the step in progress, if any: a running model call or tool is interrupted and the
     * response's stop reason is {@link AgentStopReason#CANCELLED}. Messages already stored stay.
     */
    public void cancel() {
        turns.of(scope).ifPresent(Turn::cancel);
    }

    /**
     * Whether a turn of this agent may stop to ask its runtime's {@link dev.engram.framework.ApprovalHandler} to
     * approve a tool call: one of its tools has a {@code requires_approval} rule, or is not read-only and its
     * approval mode does not run it without asking. {@code false} means no call of its current tools ever waits for
     * approval, so a host may run its turns where nothing could answer one.
     */
    public boolean mayRequestApproval() {
        return tools.mayAskForApproval();
    }

    /** Whether a message is being worked on. */
    public boolean isBusy() {
        return lock.isLocked();
    }

    /** Whether the agent holds something in memory alone: a turn running or waiting to run, or a context swap asked for. */
    boolean holdsState() {
        return lock.isLocked() || lock.hasQueuedThreads() || !hotSwaps.isEmpty();
    }

    /** The prompt the next step would send, without the new message. */
    public CompiledPrompt compilePrompt() {
        return compilePrompt(DEFAULT_SESSION);
    }

    /** The prompt the next step in session {@code sessionId} would send, without the new message. */
    public CompiledPrompt compilePrompt(String sessionId) {
        checkText(sessionId, "session id");
        return compile(context.read(sessionId));
    }

    /**
     * The request the first step of a turn would send the agent's model for a user message in session
     * {@code sessionId}, built as that step builds it (the message after the in-context ones, the memory statistics
     * counting it, the tools the rules allow first, the client's tools in place of the agent's of the same names), but
     * nothing is stored and the model is not called. A prompt over the context window is shown as it is: the step
     * would compact it first. Give it to {@link ChatModel#requestBody} for the provider's own body.
     *
     * @throws IllegalArgumentException if the session id is blank
     */
    public ChatRequest previewRequest(String sessionId, String message, List<MessageImage> images, Optional<ClientTools> client) {
        checkText(sessionId, "session id");
        Objects.requireNonNull(message, "message must not be null");
        Objects.requireNonNull(images, "images must not be null");
        Objects.requireNonNull(client, "client must not be null");
        InContextMessages.Read read = context.read(sessionId);
        Instant now = settings.store().clock().instant();
        List<ConversationMessage> messages = new ArrayList<>(read.messages());
        messages.add(new ConversationMessage(Long.MAX_VALUE, id(), userId(), sessionId, MessageRole.USER, message, List.of(),
                Optional.empty(), now, true, Optional.empty(), images));
        MemoryStats s = read.stats();
        MemoryStats stats = new MemoryStats(s.blocks(), s.archivalEntries(), s.notes(), s.messages() + 1,
                s.messagesInContext() + 1, Optional.of(now));
        CompiledPrompt prompt = compile(new InContextMessages.Read(messages, stats));
        return request(settings.models().apply(definition.model()), new ToolRuleSolver(definition.toolRules()), client, prompt);
    }

    /**
     * Frees the context window of a session now, as a turn does when its prompt outgrows the window: the model
     * summarises the older part of the session's in-context messages (the earlier summaries folded in), the summary is
     * stored, and the summarised messages leave the context (they stay in recall memory). The newest user message and
     * everything after it stay. A conversation's session ({@link dev.engram.memory.Conversation#isConversationSession})
     * compacts only its own messages; any other session compacts the agent's own history.
     *
     * @throws IllegalArgumentException if the session id is blank
     * @throws AgentException           if a message is being worked on, if the session has no in-context messages or
     *                                  too few to summarise any (it needs a user message after the first), or if the
     *                                  model fails; nothing changes then
     */
    public Compaction compact(String sessionId) {
        checkText(sessionId, "session id");
        settings.checkOpen();
        if (!lock.tryLock()) {
            throw new AgentException("Agent '" + id() + "' is working on a message; compact its context window after "
                    + "the message is done.");
        }
        try {
            InContextMessages.Read read = context.read(sessionId);
            if (read.messages().isEmpty()) {
                throw new AgentException("No in-context messages found for this conversation: there is nothing to compact.");
            }
            Compactor compactor = new Compactor(this, settings);
            if (!compactor.canCompact(read.messages())) {
                throw new AgentException("Compacting would not reduce the number of messages: the context window holds "
                        + read.messages().size() + " messages, and the newest user message and what follows it always "
                        + "stay; send more messages first.");
            }
            String summary = compactor.compact(sessionId, read.messages(), compile(read).tokens());
            return new Compaction(summary, read.messages().size(), context.read(sessionId).messages().size());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Asks for the session's context to be compacted before its next model call, in the turn running now (the
     * {@code trigger_hot_swap} tool) or the next one: the compaction {@link #compact(String)} does, which keeps the
     * newest user message and everything after it, so the turn that asked goes on. Returns whether the session has
     * anything to evict now.
     */
    boolean requestHotSwap(String sessionId) {
        checkText(sessionId, "session id");
        boolean possible = new Compactor(this, settings).canCompact(context.read(sessionId).messages());
        if (possible) {
            hotSwaps.add(sessionId);
        }
        return possible;
    }

    /**
     * The messages in the context window of the agent's own history (not a conversation's), oldest first (summaries of
     * evicted messages are system messages).
     */
    public List<ConversationMessage> inContextMessages() {
        return context.read(DEFAULT_SESSION).messages();
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
            return run(new Turn(sender.session, chain, Optional.of(fromAgentId), definition.toolRules(), null),
                    "[Message from agent '" + fromAgentId + "'] " + text, List.of());
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The loop

    private AgentResponse run(Turn turn, String message, List<MessageImage> images) {
        turns.begin(scope, turn);
        turn.thread = Thread.currentThread();
        turn.record = new StepRecord(settings.store().clock());
        turn.wrote = context::wrote;
        List<ToolResult> allResults = new ArrayList<>();
        long inTokens = 0;
        long outTokens = 0;
        int steps = 0;
        int failingSteps = 0;
        try {
            // The context read at the turn's start serves the interrupted-calls check and, with the messages stored
            // next, the first step's prompt.
            tools.step().recordInterruptedCalls(turn, context.read().messages());
            turn.fresh = true;
            turn.wrote.accept(List.of(settings.append(scope, NewMessage.user(turn.session, message, images))));
            while (true) {
                if (turn.token.isCancelled()) {
                    return turn.response(AgentStopReason.CANCELLED, steps, allResults, inTokens, outTokens, "");
                }
                if (steps == definition.maxSteps()) {
                    return turn.response(AgentStopReason.STEP_CAP, steps, allResults, inTokens, outTokens, "");
                }
                steps++;
                turn.record.begin();
                settings.events().accept(new AgentEvent.StepStarted(scope, steps));
                turn.emit(new AgentStreamEvent.StepStarted(steps));
                ChatResponse response;
                try {
                    response = callModel(turn, steps);
                } catch (ModelCancelledException e) {
                    finishStep(turn, steps, Optional.of(AgentStopReason.CANCELLED));
                    return turn.response(AgentStopReason.CANCELLED, steps, allResults, inTokens, outTokens, "");
                } catch (RuntimeException e) {
                    settings.events().accept(turn.record.taken(scope, turn.session, steps, definition.model(),
                            Optional.empty(), "failed"));
                    throw e;
                }
                inTokens += response.usage().inputTokens();
                outTokens += response.usage().outputTokens();
                turn.emit(new AgentStreamEvent.Usage(steps, response.usage().inputTokens(), response.usage().outputTokens()));
                if (turn.token.isCancelled()) {
                    // Cancelled as the answer completed: nothing of it is stored, as if it never came.
                    finishStep(turn, steps, Optional.of(AgentStopReason.CANCELLED));
                    return turn.response(AgentStopReason.CANCELLED, steps, allResults, inTokens, outTokens, "");
                }
                ChatMessage.Assistant assistant = response.message();
                String finalText = assistant.toolCalls().isEmpty() ? assistant.text() : "";
                AgentTools now = tools;
                int step = steps;
                int failingBefore = failingSteps;
                StepEnd end;
                if (!assistant.toolCalls().isEmpty() && now.step().runsInOneUnit(turn, assistant, now.mayAskForApproval())) {
                    // Every call runs on this thread and touches only the store: the calls' record, what they write,
                    // their results and the step's record commit together, and a call that fails leaves no write.
                    end = settings.store().inTransaction(tx -> endStep(turn, step, assistant, now,
                            now.step().run(turn, step, assistant, now.names(), true), failingBefore));
                } else {
                    // Calls are recorded and run first (their record commits before any side effect)
                    ToolStep.Outcome ran = assistant.toolCalls().isEmpty() ? null
                            : now.step().run(turn, steps, assistant, now.names(), false);
                    // The step's last writes and its record ({@link AgentEvent.StepTaken}, which a listener may store)
                    // are one transaction: a step whose results are stored has its record stored too.
                    end = settings.store().inTransaction(tx -> endStep(turn, step, assistant, now, ran, failingBefore));
                }
                if (end.outcome() != null) {
                    allResults.addAll(end.outcome().results);
                    failingSteps = end.outcome().anyFailed ? failingSteps + 1 : 0;
                    end.outcome().returns.forEach(turn::emit);
                }
                turn.emit(new AgentStreamEvent.StepFinished(steps, end.stop()));
                if (end.stop().isPresent()) {
                    return turn.response(end.stop().get(), steps, allResults, inTokens, outTokens, finalText);
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

    /** How a step that the model answered ended: its tool calls' outcome (none for an answer without calls), and the stop. */
    private record StepEnd(ToolStep.Outcome outcome, Optional<AgentStopReason> stop) {
    }

    /**
     * The end of a step the model answered, in the caller's transaction: the answer without calls, or the results of
     * the calls that ran, stored; the stop decided (a note of the runtime's when the turn may not end yet); the step's
     * events, its record among them. The turn's stream hears of it after the commit.
     */
    private StepEnd endStep(Turn turn, int step, ChatMessage.Assistant assistant, AgentTools now, ToolStep.Outcome ran,
            int failingBefore) {
        Optional<AgentStopReason> stop;
        ToolStep.Outcome outcome = null;
        if (ran == null) {
            if (!assistant.text().isBlank()) {
                turn.wrote.accept(List.of(settings.append(scope, NewMessage.assistant(turn.session, assistant.text(),
                        List.of(), Reasonings.stored(assistant.reasoning())))));
            }
            stop = Optional.of(AgentStopReason.END_TURN);
        } else {
            outcome = now.step().store(turn, step, ran);
            stop = outcome.stop(definition.agentType().loop(), turn.token.isCancelled(), failingBefore,
                    settings.maxCorrections());
        }
        if (stop.isPresent()) {
            stop = checkExit(turn, stop.get(), step);
        }
        settings.events().accept(new AgentEvent.StepFinished(scope, step, stop));
        settings.events().accept(turn.record.taken(scope, turn.session, step, definition.model(), stop,
                stop.filter(AgentStopReason.CANCELLED::equals).isPresent() ? "cancelled" : "success"));
        return new StepEnd(outcome, stop);
    }

    private void finishStep(Turn turn, int step, Optional<AgentStopReason> stop) {
        settings.events().accept(new AgentEvent.StepFinished(scope, step, stop));
        turn.emit(new AgentStreamEvent.StepFinished(step, stop));
        settings.events().accept(turn.record.taken(scope, turn.session, step, definition.model(), stop,
                stop.filter(AgentStopReason.CANCELLED::equals).isPresent() ? "cancelled" : "success"));
    }

    /**
     * Lets a turn end, unless required-before-exit tools have not run: then the model is told so in a
     * message of the runtime's and the turn goes on, or, at the step cap, stops with {@code STEP_CAP}.
     */
    private Optional<AgentStopReason> checkExit(Turn turn, AgentStopReason reason, int steps) {
        boolean normalEnd = switch (reason) {
            case YIELDED, END_TURN, NO_HEARTBEAT, TERMINAL_TOOL -> true;
            default -> false;
        };
        List<String> missing = turn.rules.missingBeforeExit();
        if (!normalEnd || missing.isEmpty() || turn.token.isCancelled()) {
            return Optional.of(reason);
        }
        if (steps >= definition.maxSteps()) {
            return Optional.of(AgentStopReason.STEP_CAP);
        }
        turn.wrote.accept(List.of(settings.append(scope, NewMessage.user(turn.session, RUNTIME_NOTE
                + "Your turn cannot end yet: the tool rules require you to call " + String.join(", ", missing)
                + " first. Call it now."))));
        return Optional.empty();
    }

    private ChatResponse callModel(Turn turn, int step) {
        ChatModel model = settings.models().apply(definition.model());
        try {
            return ask(model, turn, step, promptForStep(turn, false));
        } catch (ContextLengthExceededException e) {
            // The provider counts differently from us: compact now and try once more.
            CompiledPrompt smaller = promptForStep(turn, true);
            try {
                return ask(model, turn, step, smaller);
            } catch (ContextLengthExceededException again) {
                throw new AgentException("The prompt of agent '" + id() + "' is still too long for model '"
                        + definition.model() + "' after compacting (" + smaller.tokens() + " tokens by our count); "
                        + "lower contextWindowTokens in the agent's definition to the model's real window.", again);
            }
        } catch (ModelCancelledException e) {
            throw e;
        } catch (ModelTimeoutException e) {
            throw new AgentException("Agent '" + id() + "' stopped waiting for its model " + definition.model() + ": "
                    + e.getMessage(), e);
        } catch (ModelException e) {
            throw new AgentException("Agent '" + id() + "' could not reach its model " + definition.model() + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * One model call: the tools the rules allow now (with a forced {@code tool_choice} where a rule says a
     * tool must come next, and one call per step where the rules depend on order), streamed when the
     * turn has a listener.
     */
    private ChatResponse ask(ChatModel model, Turn turn, int step, CompiledPrompt prompt) {
        ChatRequest request = request(model, turn.rules, turn.client, prompt);
        turn.record.asked(request.tools(), prompt.tokens(), request.messages().size());
        long start = System.nanoTime();
        ChatResponse response = null;
        try {
            response = turn.streaming() ? model.stream(request, new StepStream(turn, step, this.tools.userMessageArguments()))
                    : model.chat(request);
            return response;
        } finally {
            ChatResponse.Usage usage = response == null ? ChatResponse.Usage.NONE : response.usage();
            turn.record.answered(System.nanoTime() - start, Optional.ofNullable(response).map(ChatResponse::message),
                    usage.inputTokens(), usage.outputTokens());
            settings.events().accept(new AgentEvent.ModelCalled(scope, definition.model(),
                    Duration.ofNanos(System.nanoTime() - start), usage.inputTokens(), usage.outputTokens(), response == null));
        }
    }

    /** The request of a step: the prompt as the model can take it, with the tools the rules allow now and the client's. */
    private ChatRequest request(ChatModel model, ToolRuleSolver rules, Optional<ClientTools> client, CompiledPrompt prompt) {
        ChatOptions options = definition.modelSettings().chatOptions();
        List<ToolDefinition> tools = prompt.tools();
        if (!definition.toolRules().isEmpty()) {
            ToolRuleSolver.Allowed allowed = rules.allowed(this.tools.names());
            tools = tools.stream().filter(t -> allowed.tools().contains(t.name())).toList();
            if (allowed.forced() && !tools.isEmpty()) {
                options = options.withToolChoice(tools.size() == 1 ? ToolChoice.named(tools.getFirst().name()) : ToolChoice.required());
            }
            if (rules.ordered()) {
                options = options.withParallelToolCalls(false);
            }
        }
        if (client.isPresent()) {
            // The client's tools for this turn, in place of the agent's tools of the same names (as in Letta).
            tools = new ArrayList<>(tools.stream().filter(t -> !client.get().has(t.name())).toList());
            tools.addAll(client.get().tools());
        }
        return new ChatRequest(Prompts.visibleTo(model, prompt.messages()), tools, options);
    }

    /** Compiles, compacting first when over the window (or when {@code forceCompaction}). */
    private CompiledPrompt promptForStep(Turn turn, boolean forceCompaction) {
        InContextMessages.Read read = turn.fresh ? context.withOwnWrites(turn.session) : context.read(turn.session);
        turn.fresh = false;
        turn.record.prompt(read.messages());
        CompiledPrompt prompt = compile(read);
        // A swap the agent asked for happens where there is something to evict; otherwise there is nothing to do.
        boolean swap = hotSwaps.remove(turn.session) && new Compactor(this, settings).canCompact(read.messages());
        if (swap || forceCompaction || prompt.tokens() > definition.contextWindowTokens()) {
            new Compactor(this, settings).compact(turn.session, read.messages(), prompt.tokens());
            InContextMessages.Read compacted = context.read(turn.session);
            turn.record.prompt(compacted.messages());
            prompt = compile(compacted);
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
    private CompiledPrompt compile(InContextMessages.Read read) {
        AgentTools now = tools;
        // The statistics shown are of the memory the agent works on: its own (read with its messages), or for a
        // companion its principal's.
        MemoryStats stats = definition.memoryScope().equals(scope) ? read.stats() : settings.store().stats(definition.memoryScope());
        return Prompts.compile(this, settings.store(), read.messages(), stats, now.offered(), now.tokens(),
                settings.memoryPressureThreshold());
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
}
