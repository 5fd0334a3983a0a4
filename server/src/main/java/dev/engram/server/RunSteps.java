package dev.engram.server;

import dev.engram.agents.AgentEvent;
import dev.engram.agents.AgentListener;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Run;
import dev.engram.memory.Scope;
import dev.engram.memory.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The steps of the runs in progress on this server, as the agents take them ({@link AgentEvent.StepTaken}). A step
 * the runtime reports inside the transaction of the step's own last writes (a step the model answered) is written
 * there at once, so that a turn cut off later (a crash, a failure) keeps the record of every step whose messages are
 * stored, with no transaction of its own; any other (a failed or cancelled step) is held until {@link RunLog} writes it
 * with the run's events or its end (never a transaction per step). A step is the run's whose
 * request the agent's running turn works for ({@code Turns.Running.runId}): a turn holds its agent's lock, so what its
 * scope does meanwhile is the turn's, and a request waiting for the lock takes nothing. The messages a scope stores
 * between a step's start and its end are the step's ({@link Step#messageIds()}); those it stores before the run's first
 * step (the input that started the turn: the user's message, an approval's answer) are the first step's too, as Letta
 * stores a turn's input with its first step, so that a run's messages begin with what started it.
 */
final class RunSteps implements AgentListener {
    /** The collectors of the runs in progress, by run id. */
    private final ConcurrentHashMap<String, Collector> live = new ConcurrentHashMap<>();
    /** The id of the run the scope's running turn works for, if a turn runs. */
    private final Function<Scope, Optional<String>> current;
    private final MemoryStore store;

    RunSteps(MemoryStore store, Function<Scope, Optional<String>> current) {
        this.store = store;
        this.current = current;
    }

    /** The steps of one run, and the messages of the step in progress. */
    private static final class Collector {
        final Run run;
        final List<Step> pending = new ArrayList<>();
        final List<Long> stepMessages = new ArrayList<>();
        /** Whether the run's first step has started: until then, what the scope stores is the turn's input. */
        boolean stepped;

        Collector(Run run) {
            this.run = run;
        }
    }

    /** The run may take steps (those of the turn that works for it). */
    void open(Run run) {
        live.put(run.id(), new Collector(run));
    }

    /** The run's steps taken since the last call, oldest first. */
    List<Step> take(Run run) {
        Collector c = live.get(run.id());
        if (c == null) {
            return List.of();
        }
        synchronized (c) {
            List<Step> out = List.copyOf(c.pending);
            c.pending.clear();
            return out;
        }
    }

    /** Gives back steps of the run that were taken but not written, to be taken again first. */
    void hold(Run run, List<Step> unwritten) {
        Collector c = live.get(run.id());
        if (c == null || unwritten.isEmpty()) {
            return;
        }
        synchronized (c) {
            c.pending.addAll(0, unwritten);
        }
    }

    /** The run takes no more steps: its steps not taken yet. */
    List<Step> close(Run run) {
        List<Step> rest = take(run);
        live.remove(run.id());
        return rest;
    }

    @Override
    public void onEvent(AgentEvent event) {
        Collector c = current.apply(event.scope()).map(live::get).orElse(null);
        if (c == null) {
            return;
        }
        synchronized (c) {
            switch (event) {
                case AgentEvent.StepStarted s -> {
                    if (c.stepped) {
                        c.stepMessages.clear();
                    }
                    c.stepped = true;
                }
                case AgentEvent.MessagesStored m -> m.messages().stream().map(ConversationMessage::id).forEach(c.stepMessages::add);
                case AgentEvent.StepTaken t -> {
                    Step step = step(c.run, t, c.stepMessages);
                    c.stepMessages.clear();
                    // in the step's own transaction: written with its messages (a run deleted meanwhile takes none)
                    if (!store.isInTransaction() || !store.runs().addSteps(c.run.userId(), c.run.id(), List.of(step))) {
                        c.pending.add(step);
                    }
                }
                default -> {
                }
            }
        }
    }

    private static Step step(Run run, AgentEvent.StepTaken t, List<Long> messages) {
        String stop = t.stopReason().map(TurnViews::stopReason).orElse(t.status().equals("failed") ? "error" : "");
        return new Step(Step.newId(), run.userId(), run.agentId(), run.id(), t.model(), provider(t.model()),
                t.inputTokens(), t.outputTokens(), t.request(), t.response(), messages, stop, t.status(), t.startedAt(),
                t.modelTime(), t.completedAt(), "", List.of());
    }

    /** The provider part of a model spec: {@code openai} of {@code openai/gpt-4o}, {@code script} of {@code script:x}. */
    static String provider(String model) {
        int slash = model.indexOf('/');
        int colon = model.indexOf(':');
        int at = slash < 0 ? colon : colon < 0 ? slash : Math.min(slash, colon);
        return at < 0 ? "" : model.substring(0, at);
    }
}
