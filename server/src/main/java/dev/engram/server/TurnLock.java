package dev.engram.server;

import dev.engram.memory.Scope;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One turn at a time per agent. An agent already runs one message at a time inside one process; a
 * server that shares its database with other instances needs the same across all of them, which a lock in
 * the database gives (the PostgreSQL store's advisory locks). The server holds the lock for the whole turn,
 * approvals included.
 */
public interface TurnLock {
    /**
     * Waits until no turn of {@code agent} runs here or anywhere else the lock reaches, and holds it.
     *
     * @throws InterruptedException if the waiting thread is interrupted (the lock is not held then)
     */
    Hold acquire(Scope agent) throws InterruptedException;

    /** A held lock; closing it lets the next turn of the agent run. */
    interface Hold extends AutoCloseable {
        @Override
        void close();
    }

    /** A lock for one process: fair per agent, so turns run in the order they arrived. */
    static TurnLock local() {
        ConcurrentHashMap<Scope, ReentrantLock> locks = new ConcurrentHashMap<>();
        return agent -> {
            ReentrantLock lock = locks.computeIfAbsent(agent, a -> new ReentrantLock(true));
            lock.lockInterruptibly();
            return lock::unlock;
        };
    }
}
