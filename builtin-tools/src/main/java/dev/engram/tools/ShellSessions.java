package dev.engram.tools;

import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The live shell sessions of {@code shell_exec} with {@link ShellOptions.Backend#SESSION}: one long-lived shell in the
 * bubblewrap sandbox per user, agent, conversation session and workspace, so that {@code cd} and {@code export} carry
 * over from one call to the next. Whoever creates it owns the processes: {@link #close()} kills every session (an
 * agent runtime closes the one it was given when it closes).
 *
 * <p>A session idle for longer than the idle timeout is closed (checked every half timeout, at most every 30 s, and
 * before each command). At most {@code maxSessions} live at once: opening one more closes the session idle the longest;
 * when every session is running a command, the call is refused, saying so. The next command of a closed session
 * starts a fresh one at the workspace root, and its result says why the old one went.
 */
public final class ShellSessions implements AutoCloseable {
    /** Sessions idle this long are closed, unless set otherwise. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(15);
    /** Live sessions at most, unless set otherwise. */
    public static final int DEFAULT_MAX_SESSIONS = 8;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ShellSessions.class);

    /** Who a session belongs to; its workspace too, since the sandbox binds it at start. */
    record Key(String userId, String agentId, String sessionId, Path workspaceRoot) {
        static Key of(ToolContext ctx, Workspace workspace) {
            return new Key(ctx.userId().orElse("-"), ctx.agentId().orElse("-"), ctx.sessionId().orElse("-"), workspace.root());
        }
    }

    private final Duration idleTimeout;
    private final int maxSessions;
    private final Clock clock;
    private final Map<Key, ShellSession> sessions = new HashMap<>();
    private final Map<Key, ReentrantLock> turns = new HashMap<>();
    /** Why a key's last session was closed, told to the model at its next command; a few hundred kept at most. */
    private final Map<Key, String> closedBecause = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, String> eldest) {
            return size() > 256;
        }
    };
    private final ScheduledExecutorService reaper;
    private boolean closed;

    private ShellSessions(Duration idleTimeout, int maxSessions, Clock clock, boolean checkSandbox) {
        Objects.requireNonNull(idleTimeout, "idle timeout must not be null");
        Objects.requireNonNull(clock, "clock must not be null");
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("the shell sessions' idle timeout must be positive, got " + idleTimeout);
        }
        if (maxSessions < 1) {
            throw new IllegalArgumentException("at least one shell session must be allowed, got " + maxSessions);
        }
        if (checkSandbox) {
            Bubblewrap sandbox = Bubblewrap.find().orElseThrow(() -> new IllegalStateException("shell sessions run in the "
                    + "bubblewrap sandbox, and bwrap is not on the PATH (or /usr/bin/prlimit is missing): "
                    + Bubblewrap.INSTALL));
            sandbox.user().refusal().ifPresent(why -> {
                throw new IllegalStateException("shell sessions run in the bubblewrap sandbox, which cannot start here: " + why);
            });
        }
        this.idleTimeout = idleTimeout;
        this.maxSessions = maxSessions;
        this.clock = clock;
        this.reaper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("engram-shell-sessions")
                .factory());
        long period = Math.max(1, Math.min(idleTimeout.toMillis() / 2, 30_000));
        reaper.scheduleWithFixedDelay(this::closeIdle, period, period, TimeUnit.MILLISECONDS);
    }

    /** {@link #DEFAULT_IDLE_TIMEOUT} and {@link #DEFAULT_MAX_SESSIONS}; see {@link #create(Duration, int)}. */
    public static ShellSessions create() {
        return create(DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_SESSIONS);
    }

    /**
     * Sessions closed after {@code idleTimeout} without a command, at most {@code maxSessions} at once.
     *
     * @throws IllegalArgumentException when the timeout is not positive or fewer than one session is allowed
     * @throws IllegalStateException    when there is no sandbox to run them in (bubblewrap missing, or a root JVM
     *                                  without {@code setpriv}), naming what to install
     */
    public static ShellSessions create(Duration idleTimeout, int maxSessions) {
        return new ShellSessions(idleTimeout, maxSessions, Clock.systemUTC(), true);
    }

    /** As {@link #create(Duration, int)}, idle time measured on {@code clock} (tests move it), the sandbox not checked. */
    static ShellSessions create(Duration idleTimeout, int maxSessions, Clock clock) {
        return new ShellSessions(idleTimeout, maxSessions, clock, false);
    }

    public Duration idleTimeout() {
        return idleTimeout;
    }

    public int maxSessions() {
        return maxSessions;
    }

    /** How many sessions are live now. */
    public synchronized int size() {
        return sessions.size();
    }

    /** Closes every session (killing its processes) and refuses commands from now on. Idempotent. */
    @Override
    public void close() {
        List<ShellSession> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(sessions.values());
            sessions.clear();
        }
        reaper.shutdownNow();
        all.forEach(ShellSession::kill);
    }

    /** Closes the sessions idle past the timeout; returns how many. */
    int closeIdle() {
        List<ShellSession> idle = new ArrayList<>();
        synchronized (this) {
            Instant now = clock.instant();
            sessions.entrySet().removeIf(e -> {
                ShellSession s = e.getValue();
                if (s.users == 0 && Duration.between(s.lastUsed(), now).compareTo(idleTimeout) >= 0) {
                    idle.add(s);
                    closedBecause.put(e.getKey(), "the previous one was closed after " + describe(idleTimeout) + " idle");
                    return true;
                }
                return false;
            });
        }
        idle.forEach(ShellSession::kill);
        return idle.size();
    }

    /** Every process of every live session, for tests that check that none is left. */
    synchronized List<ProcessHandle> processes() {
        return sessions.values().stream().flatMap(s -> s.processes().stream()).toList();
    }

    /**
     * Runs {@code command} in the caller's session, starting one when it has none, and returns the result for the model.
     * Commands of one session run one after the other; a command waits for the one before it at most its own timeout.
     */
    String run(Key key, Bubblewrap sandbox, Workspace workspace, ShellOptions options, String command, Optional<Path> cwd,
            Duration timeout, ToolContext ctx) throws IOException, InterruptedException {
        ReentrantLock turn;
        synchronized (this) {
            turn = turns.computeIfAbsent(key, k -> new ReentrantLock());
        }
        if (!turn.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new ToolException("The shell session is still running an earlier command after " + timeout.toSeconds()
                    + " s; nothing was run. Try again when it has finished.");
        }
        try {
            return runInTurn(key, sandbox, workspace, options, command, cwd, timeout, ctx);
        } finally {
            turn.unlock();
        }
    }

    private String runInTurn(Key key, Bubblewrap sandbox, Workspace workspace, ShellOptions options, String command,
            Optional<Path> cwd, Duration timeout, ToolContext ctx) throws IOException, InterruptedException {
        closeIdle();
        ShellSession session;
        String fresh = "";
        ShellSession evicted = null;
        synchronized (this) {
            if (closed) {
                throw new ToolException("The shell sessions are closed (the agent runtime is shutting down); nothing was run.");
            }
            session = sessions.get(key);
            if (session == null) {
                if (sessions.size() >= maxSessions) {
                    Map.Entry<Key, ShellSession> oldest = sessions.entrySet().stream().filter(e -> e.getValue().users == 0)
                            .min(Comparator.comparing(e -> e.getValue().lastUsed())).orElseThrow(() -> new ToolException(
                                    "All " + maxSessions + " shell sessions allowed at once are running commands; nothing was "
                                            + "run. Try again when one has finished."));
                    evicted = sessions.remove(oldest.getKey());
                    closedBecause.put(oldest.getKey(), "the previous one was closed to make room for another session (at most "
                            + maxSessions + " live at once)");
                }
                session = ShellSession.start(sandbox, workspace, options.limits(), options.environment(), clock.instant());
                sessions.put(key, session);
                String why = closedBecause.remove(key);
                if (why != null) {
                    fresh = "(A new shell session started at the workspace root: " + why + "; its directory and variables "
                            + "are gone.)\n";
                }
            }
            session.users++;
        }
        if (evicted != null) {
            evicted.kill();
        }
        ShellSession.Outcome outcome;
        try {
            outcome = session.run(command, cwd, timeout, options.outputBytes(), ctx.progress(), clock.instant());
        } finally {
            synchronized (this) {
                session.users--;
                if (session.alive()) {
                    // the clock may have moved while the command ran: idle time counts from its end
                    session.touch(clock.instant());
                } else if (sessions.get(key) == session) {
                    sessions.remove(key);
                }
            }
        }
        String output = outcome.output().text();
        return fresh + switch (outcome.stop()) {
            case FINISHED -> "exit code " + outcome.exitCode().orElseThrow() + "\n" + output;
            case TIMED_OUT -> {
                LOG.info("shell session of agent {} (session {}) killed after its {} s timeout", key.agentId(), key.sessionId(),
                        timeout.toSeconds());
                yield "Timed out after " + timeout.toSeconds() + " s; the shell session was killed with everything it ran. "
                        + "The next command starts a fresh session at the workspace root (directory and variables reset).\n"
                        + output;
            }
            case SHELL_ENDED -> "exit code " + outcome.exitCode().orElseThrow() + "\n" + output
                    + (output.isEmpty() || output.endsWith("\n") ? "" : "\n")
                    + "(The shell session ended; the next command starts a fresh one at the workspace root.)\n";
        };
    }

    private static String describe(Duration d) {
        return d.toMinutes() >= 1 && d.toSecondsPart() == 0 ? d.toMinutes() + " min" : d.toSeconds() + " s";
    }
}
