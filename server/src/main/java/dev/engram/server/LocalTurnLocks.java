package dev.engram.server;

import dev.engram.memory.Scope;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link TurnLock#local()}: a fair lock per agent, kept only while a turn of that agent holds it or waits for it, so
 * that a server of many agents keeps as many locks as it has turns under way, not one for every agent that ever had one.
 */
final class LocalTurnLocks implements TurnLock {
    /** A lock and how many turns hold it or wait for it; {@code users} is changed only inside the map's compute. */
    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock(true);
        int users;
    }

    private final ConcurrentHashMap<Scope, Entry> locks = new ConcurrentHashMap<>();

    @Override
    public Hold acquire(Scope agent) throws InterruptedException {
        Entry e = locks.compute(agent, (k, v) -> {
            Entry x = v == null ? new Entry() : v;
            x.users++;
            return x;
        });
        try {
            e.lock.lockInterruptibly();
        } catch (InterruptedException ex) {
            release(agent);
            throw ex;
        }
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                e.lock.unlock();
                release(agent);
            }
        };
    }

    private void release(Scope agent) {
        locks.computeIfPresent(agent, (k, v) -> --v.users == 0 ? null : v);
    }

    /** How many agents' locks are kept now: those held or waited for. */
    int size() {
        return locks.size();
    }
}
