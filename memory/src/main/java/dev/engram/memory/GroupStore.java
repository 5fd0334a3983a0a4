package dev.engram.memory;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Multi-agent groups ({@link Group}, Letta's groups): each its user's, made only of the user's own agents. Every method
 * takes the user, and nothing of another user's is there: another user's group is "not found", and a group naming an
 * agent the user does not have is refused whole.
 *
 * <p>Backends keep groups through the optional group methods of {@link dev.engram.memory.spi.Rows}; over a backend
 * without them every method here throws {@link UnsupportedOperationException}, except {@link #ofAgent}, which is empty.
 */
public final class GroupStore {
    /** The most groups one user keeps. */
    public static final int MAX_PER_USER = 1_000;

    private final StoreCore store;

    GroupStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Creates a group of the user.
     *
     * @throws NotFoundException        if an agent it names (member or manager) is not the user's; nothing is stored then
     * @throws IllegalArgumentException if the user already keeps {@link #MAX_PER_USER} groups
     */
    public Group create(String userId, GroupSpec spec) {
        Checks.id(userId, "user id");
        Checks.notNull(spec, "spec");
        return store.write(rows -> {
            if (rows.listGroups(userId).size() >= MAX_PER_USER) {
                throw new IllegalArgumentException("user '" + userId + "' already keeps " + MAX_PER_USER
                        + " groups; delete one first");
            }
            Instant now = store.now();
            Group g = new Group(Group.ID_PREFIX + UUID.randomUUID(), userId, spec, 0, now, now);
            checkAgents(rows, g);
            rows.putGroup(g);
            return g;
        });
    }

    /** The user's group of that id; empty for an id that is not the user's. */
    public Optional<Group> get(String userId, String id) {
        Checks.id(userId, "user id");
        Checks.notNull(id, "group id");
        return store.read(rows -> rows.group(userId, id));
    }

    /** The user's groups, oldest first. */
    public List<Group> list(String userId) {
        Checks.id(userId, "user id");
        return store.read(rows -> rows.listGroups(userId));
    }

    /** The user's groups that involve the agent, as manager or member, oldest first; empty over a backend without groups. */
    public List<Group> ofAgent(String userId, String agentId) {
        Checks.id(userId, "user id");
        Checks.notNull(agentId, "agent id");
        return store.read(rows -> {
            try {
                return rows.listGroups(userId).stream().filter(g -> g.involvedAgents().contains(agentId)).toList();
            } catch (UnsupportedOperationException noGroups) {
                return List.<Group>of();
            }
        });
    }

    /**
     * Gives the user's group a new spec.
     *
     * @throws NotFoundException if the user has no such group, or an agent the spec names is not the user's; nothing is
     *                           changed then
     */
    public Group update(String userId, String id, GroupSpec spec) {
        Checks.id(userId, "user id");
        Checks.notNull(id, "group id");
        Checks.notNull(spec, "spec");
        return store.write(rows -> {
            Group g = rows.group(userId, id).orElseThrow(() -> noGroup(id));
            if (g.spec().equals(spec)) {
                return g;
            }
            Group next = new Group(g.id(), userId, spec, g.turnsCounter(), g.createdAt(), store.now());
            checkAgents(rows, next);
            rows.putGroup(next);
            return next;
        });
    }

    /**
     * Counts one answered group message; returns the group with its new {@link Group#turnsCounter()}.
     *
     * @throws NotFoundException if the user has no such group
     */
    public Group countTurn(String userId, String id) {
        Checks.id(userId, "user id");
        Checks.notNull(id, "group id");
        return store.write(rows -> {
            Group g = rows.group(userId, id).orElseThrow(() -> noGroup(id));
            Group next = new Group(g.id(), userId, g.spec(), g.turnsCounter() + 1, g.createdAt(), store.now());
            rows.putGroup(next);
            return next;
        });
    }

    /** Deletes the user's group (not its agents); returns whether there was one. */
    public boolean delete(String userId, String id) {
        Checks.id(userId, "user id");
        Checks.notNull(id, "group id");
        return store.write(rows -> rows.deleteGroup(userId, id));
    }

    private static void checkAgents(dev.engram.memory.spi.Rows rows, Group g) {
        for (String agentId : g.involvedAgents()) {
            if (rows.agent(Scope.of(g.userId(), agentId)).isEmpty()) {
                throw new NotFoundException("There is no agent '" + agentId + "' for this user; a group is made of the "
                        + "user's own agents. Nothing was stored.");
            }
        }
    }

    private static NotFoundException noGroup(String id) {
        return new NotFoundException("There is no group '" + id + "'; list them to see their ids.");
    }
}
