package dev.engram.server;

import dev.engram.memory.Scope;

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

    /** Named locks of another kind, e.g. a database's advisory locks held across processes. */
    @FunctionalInterface
    interface NamedLocks {
        /** Waits for and holds the lock of that name; closing the result releases it. */
        AutoCloseable acquire(String name) throws InterruptedException;
    }

    /**
     * A turn lock over named locks: one per agent, named {@code engram-turn:USER/AGENT}, so that every server taking
     * its locks from the same place (e.g. {@code PostgresLocks} on one database) runs an agent's turns one at a time.
     */
    static TurnLock byName(NamedLocks locks) {
        return agent -> {
            AutoCloseable held = locks.acquire("engram-turn:" + agent.userId() + "/" + agent.agentId());
            return () -> {
                try {
                    held.close();
                } catch (Exception e) {
                    throw new IllegalStateException("releasing the turn lock of agent " + agent + " failed: " + e.getMessage(), e);
                }
            };
        };
    }

    /**
     * A lock for one process: fair per agent, so turns run in the order they arrived; an agent's lock is kept only while
     * a turn holds it or waits for it.
     */
    static TurnLock local() {
        return new LocalTurnLocks();
    }
}
