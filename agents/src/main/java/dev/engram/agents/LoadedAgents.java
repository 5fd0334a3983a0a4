package dev.engram.agents;

import dev.engram.memory.Scope;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The agents a runtime keeps loaded, at most {@code max}: past that, the least recently used agents that hold nothing
 * in memory alone ({@link Agent#holdsState()}: no turn running or waiting, no context swap asked for) are let go. An
 * agent keeps everything it was told in the store, so one let go is loaded again from there when next asked for. One
 * let go that someone still holds (a caller's reference, a turn about to start on it) is given back when asked for, not
 * loaded a second time: a process never runs two instances of one agent side by side, whose turns would not wait for
 * each other. Thread-safe.
 */
final class LoadedAgents {
    private final int max;
    private final ConcurrentHashMap<Scope, Slot> slots = new ConcurrentHashMap<>();
    /** Agents let go, while something else may still hold them; cleared ones are purged from here as they are let go. */
    private final ConcurrentHashMap<Scope, Released> released = new ConcurrentHashMap<>();
    private final ReferenceQueue<Agent> cleared = new ReferenceQueue<>();
    private final AtomicLong uses = new AtomicLong();

    /** A loaded agent, the stored definition (its text) it was built from, and when it was last asked for. */
    private static final class Slot {
        final Agent agent;
        volatile String definition;
        volatile long used;

        Slot(Agent agent, String definition, long used) {
            this.agent = agent;
            this.definition = definition;
            this.used = used;
        }
    }

    /** An agent let go, with its definition's text for when it is given back. */
    private static final class Released extends WeakReference<Agent> {
        final Scope scope;
        final String definition;

        Released(Slot slot, ReferenceQueue<Agent> queue) {
            super(slot.agent, queue);
            this.scope = slot.agent.scope();
            this.definition = slot.definition;
        }
    }

    /** A loaded agent and the stored definition's text it was built from. */
    record Loaded(Agent agent, String definition) {
    }

    LoadedAgents(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("the most agents kept loaded must be at least 1, got " + max);
        }
        this.max = max;
    }

    /** The most agents kept loaded. */
    int max() {
        return max;
    }

    /** The agent of {@code scope} if it is loaded (or was let go and is still held), counted as used now. */
    Optional<Agent> get(Scope scope) {
        Slot slot = slots.get(scope);
        if (slot == null) {
            slot = slots.computeIfAbsent(scope, s -> revive(s).orElse(null));
            if (slot == null) {
                return Optional.empty();
            }
            slot.used = uses.incrementAndGet();
            trim();
        } else {
            slot.used = uses.incrementAndGet();
        }
        return Optional.of(slot.agent);
    }

    /** The agent of {@code scope}: the loaded one, one let go that is still held, or else {@code load}'s, kept. */
    Agent computeIfAbsent(Scope scope, Function<Scope, Loaded> load) {
        Slot slot = slots.get(scope);
        if (slot == null) {
            slot = slots.computeIfAbsent(scope, s -> revive(s).orElseGet(() -> {
                Loaded l = load.apply(s);
                return new Slot(l.agent(), l.definition(), 0);
            }));
            slot.used = uses.incrementAndGet();
            trim();
        } else {
            slot.used = uses.incrementAndGet();
        }
        return slot.agent;
    }

    /** Keeps {@code agent} loaded, built from the stored definition {@code definition}, in place of any other. */
    void put(Agent agent, String definition) {
        Scope scope = agent.scope();
        released.remove(scope);
        slots.put(scope, new Slot(agent, definition, uses.incrementAndGet()));
        trim();
    }

    /** The stored definition's text the loaded agent of {@code scope} was built from. */
    Optional<String> definition(Scope scope) {
        Slot slot = slots.get(scope);
        return slot == null ? Optional.empty() : Optional.of(slot.definition);
    }

    /** Records that the loaded agent of {@code scope} now runs the stored definition {@code definition}. */
    void definition(Scope scope, String definition) {
        Slot slot = slots.get(scope);
        if (slot != null) {
            slot.definition = definition;
        }
    }

    /** Forgets the agent of {@code scope}, loaded or let go. */
    void remove(Scope scope) {
        slots.remove(scope);
        released.remove(scope);
    }

    /** The agents loaded now, and those let go that something still holds (which are given back when asked for). */
    List<Agent> values() {
        List<Agent> out = new ArrayList<>();
        slots.values().forEach(s -> out.add(s.agent));
        for (Released r : released.values()) {
            Agent a = r.get();
            if (a != null) {
                out.add(a);
            }
        }
        return out;
    }

    /** How many agents are loaded now. */
    int size() {
        return slots.size();
    }

    /** Forgets every agent. */
    void clear() {
        slots.clear();
        released.clear();
    }

    /** An agent let go that something still holds, back in a slot (or nothing), as used now. */
    private Optional<Slot> revive(Scope scope) {
        Released r = released.remove(scope);
        Agent agent = r == null ? null : r.get();
        return agent == null ? Optional.empty() : Optional.of(new Slot(agent, r.definition, uses.incrementAndGet()));
    }

    /**
     * Lets the least recently used agents that hold nothing in memory alone go, once more than {@code max} are loaded:
     * down to {@code max - max / 10} (fewer go when more of them hold state).
     */
    private void trim() {
        if (slots.size() <= max) {
            return;
        }
        synchronized (this) {
            purgeCleared();
            // down to a tenth below the bound at once, so that a store of many more agents than the bound, asked for at
            // random, pays for this scan once per max / 10 loads rather than at each
            int over = slots.size() - (max - max / 10);
            if (over <= 0) {
                return;
            }
            List<Slot> idle = new ArrayList<>();
            for (Slot s : slots.values()) {
                if (!s.agent.holdsState()) {
                    idle.add(s);
                }
            }
            idle.sort((a, b) -> Long.compare(a.used, b.used));
            for (int i = 0; i < idle.size() && over > 0; i++) {
                Slot s = idle.get(i);
                Released r = new Released(s, cleared);
                // Released first: a lookup that no longer finds the slot finds the agent there.
                released.put(r.scope, r);
                if (slots.remove(r.scope, s)) {
                    over--;
                } else {
                    released.remove(r.scope, r);
                }
            }
        }
    }

    private void purgeCleared() {
        for (Reference<? extends Agent> ref = cleared.poll(); ref != null; ref = cleared.poll()) {
            Released r = (Released) ref;
            released.remove(r.scope, r);
        }
    }
}
