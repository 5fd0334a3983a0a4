package dev.engram.server;

import dev.engram.agents.AgentEvent;
import dev.engram.agents.AgentListener;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Run;
import dev.engram.memory.Scope;
import dev.engram.memory.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The steps of the runs in progress on this server, as the agents take them ({@link AgentEvent.StepTaken}), held until
 * {@link RunLog} writes them with the run's events or its end (never a transaction per step). A turn holds its agent's
 * lock, so at most one run of a scope takes steps at a time: the one opened last. The messages a scope stores between a
 * step's start and its end are the step's ({@link Step#messageIds()}).
 */
final class RunSteps implements AgentListener {
    /** The run taking steps, by its agent's scope. */
    private final ConcurrentHashMap<Scope, Collector> live = new ConcurrentHashMap<>();

    /** The steps of one run, and the messages of the step in progress. */
    private static final class Collector {
        final Run run;
        final List<Step> pending = new ArrayList<>();
        final List<Long> stepMessages = new ArrayList<>();

        Collector(Run run) {
            this.run = run;
        }
    }

    /** The run now takes the steps of its agent (in place of any run of the agent before it). */
    void open(Run run) {
        live.put(run.scope(), new Collector(run));
    }

    /** The run's steps taken since the last call, oldest first. */
    List<Step> take(Run run) {
        Collector c = live.get(run.scope());
        if (c == null || !c.run.id().equals(run.id())) {
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
        Collector c = live.get(run.scope());
        if (c == null || !c.run.id().equals(run.id()) || unwritten.isEmpty()) {
            return;
        }
        synchronized (c) {
            c.pending.addAll(0, unwritten);
        }
    }

    /** The run takes no more steps: its steps not taken yet. */
    List<Step> close(Run run) {
        List<Step> rest = take(run);
        live.computeIfPresent(run.scope(), (s, c) -> c.run.id().equals(run.id()) ? null : c);
        return rest;
    }

    @Override
    public void onEvent(AgentEvent event) {
        Collector c = live.get(event.scope());
        if (c == null) {
            return;
        }
        synchronized (c) {
            switch (event) {
                case AgentEvent.StepStarted s -> c.stepMessages.clear();
                case AgentEvent.MessagesStored m -> m.messages().stream().map(ConversationMessage::id).forEach(c.stepMessages::add);
                case AgentEvent.StepTaken t -> {
                    c.pending.add(step(c.run, t, c.stepMessages));
                    c.stepMessages.clear();
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
