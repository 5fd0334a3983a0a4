package dev.engram.agents;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs agents' sleep-time companions ({@link SleeptimeSettings}) between their turns: after every N
 * messages, or when the agent has been idle, on a thread of its own, so the agent's turn never waits
 * for it. A companion never works while its agent does: a new message to the agent first cancels a
 * companion run in progress (what it wrote until then stays; each write is atomic) and waits for it to
 * stop, then the agent's turn runs. The companion is an agent of its own ({@code <id>-sleeptime}),
 * created on first use, whose tools act on the agent's memory with the agent's permissions and record
 * it as the origin of each block edit.
 */
final class Sleeptime implements TurnHooks {
    private static final Logger LOG = LoggerFactory.getLogger(Sleeptime.class);
    static final String SESSION = "sleeptime";
    static final int RECENT_MESSAGES = 40;
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);
    static final List<String> TOOLS = LettaTools.SLEEPTIME_COMPANION;
    static final String PROMPT = """
            You are the sleep-time memory agent of another agent. You do not talk to the user. You are given the recent \
            conversation of your agent; its memory blocks are shown below, and your tools edit them and its archival memory.
            Integrate what was learned into the blocks: add new facts, correct outdated ones, remove duplicates, and keep each \
            block well organised and within its limit (memory_rethink rewrites a block whole). Move details that need not be \
            in every prompt to archival memory. Call memory_finish_edits when you are done.""";

    /** What is known about one agent's companion. */
    private static final class State {
        int messages;
        long lastSeenMessageId;
        volatile Agent companion;
        volatile Future<?> run;
        ScheduledFuture<?> idle;
    }

    private final Map<Scope, State> states = new ConcurrentHashMap<>();
    private final ExecutorService runs = Executors.newVirtualThreadPerTaskExecutor();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("engram-sleeptime-timer").factory());
    private volatile AgentRegistry agents;
    private volatile boolean closed;

    void attach(AgentRegistry registry) {
        this.agents = registry;
    }

    @Override
    public void beforeTurn(AgentDefinition agent) {
        if (agent.sleeptime().isEmpty()) {
            return;
        }
        State s = states.get(agent.scope());
        if (s == null) {
            return;
        }
        synchronized (s) {
            if (s.idle != null) {
                s.idle.cancel(false);
            }
        }
        Future<?> run = s.run;
        Agent companion = s.companion;
        if (run != null && !run.isDone() && companion != null) {
            companion.cancel();
            try {
                run.get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.warn("The sleep-time agent of '{}' did not stop in time", agent.id(), e);
            }
        }
    }

    @Override
    public void afterTurn(AgentDefinition definition) {
        SleeptimeSettings settings = definition.sleeptime().orElse(null);
        if (settings == null || closed) {
            return;
        }
        Agent agent = agents.loaded(definition.scope()).orElse(null);
        if (agent == null) {
            return;
        }
        State s = states.computeIfAbsent(agent.scope(), k -> new State());
        boolean due;
        synchronized (s) {
            s.messages++;
            due = s.messages >= settings.everyMessages();
            if (due) {
                s.messages = 0;
            }
            settings.idleAfter().ifPresent(d -> s.idle = timers.schedule(() -> start(agent, s), d.toMillis(), TimeUnit.MILLISECONDS));
        }
        if (due) {
            start(agent, s);
        }
    }

    /** Starts a run unless one is running or the agent is busy (then the next turn's end starts it). */
    private void start(Agent agent, State s) {
        synchronized (s) {
            if (closed || agent.isBusy() || (s.run != null && !s.run.isDone())) {
                return;
            }
            s.run = runs.submit(() -> run(agent, s));
        }
    }

    private void run(Agent agent, State s) {
        try {
            Agent companion = companion(agent, s);
            List<ConversationMessage> recent = agent.settings().store().messages().list(agent.scope(),
                    MessageQuery.all().withIdRange(s.lastSeenMessageId, Long.MAX_VALUE).newest(RECENT_MESSAGES));
            if (recent.isEmpty()) {
                return;
            }
            s.lastSeenMessageId = recent.getLast().id();
            companion.send(SESSION, "The recent conversation of agent '" + agent.name() + "':\n\n"
                    + Prompts.transcript(recent, 2_000) + "\nReorganise its memory now.");
        } catch (RuntimeException e) {
            LOG.warn("The sleep-time agent of '{}' failed; it will run again after the next messages", agent.id(), e);
        }
    }

    private Agent companion(Agent agent, State s) {
        Agent companion = s.companion;
        if (companion != null) {
            return companion;
        }
        AgentDefinition d = agent.definition();
        SleeptimeSettings settings = d.sleeptime().orElseThrow();
        String id = companionId(d.id());
        companion = agents.findOrCreate(d.userId(), id, () -> AgentDefinition.builder(d.userId()).id(id)
                .name(d.name() + " (sleep-time)").systemPrompt(PROMPT).model(settings.model()).maxSteps(settings.maxSteps())
                // The loop it has always run (memory edits continue the turn; memory_finish_edits ends it).
                .agentType(AgentType.MEMGPT_V2_AGENT)
                .contextWindowTokens(d.contextWindowTokens()).tools(TOOLS).toolRules(ToolRule.terminal("memory_finish_edits"))
                .actsFor(d.id()).build());
        s.companion = companion;
        return companion;
    }

    static String companionId(String agentId) {
        String base = agentId.length() > 90 ? agentId.substring(0, 90) : agentId;
        return base + "-sleeptime";
    }

    /** Waits until no companion of {@code scope}'s agent is running (for tests and orderly shutdown). */
    boolean awaitIdle(Scope scope, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        State s = states.get(scope);
        while (s != null && s.run != null && !s.run.isDone()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    void close() {
        closed = true;
        states.values().forEach(s -> {
            Agent c = s.companion;
            if (c != null) {
                c.cancel();
            }
        });
        timers.shutdownNow();
        runs.shutdown();
        try {
            runs.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
