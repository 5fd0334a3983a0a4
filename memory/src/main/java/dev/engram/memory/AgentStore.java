package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * Agent definitions, one per {@link Scope}: the store keeps each as an opaque JSON document that the
 * agent runtime writes and reads, so that an agent reloaded after a restart is the same agent. Ids
 * identify agents; several agents of a user may share a name, as in Letta.
 *
 * <p>Deleting a definition leaves the agent's blocks, archival memory and messages in place under
 * its scope (recall memory is never deleted); an agent created again with the same id finds them.
 */
public final class AgentStore {
    private final StoreCore store;

    AgentStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Stores a new agent.
     *
     * @throws DuplicateException       if the user already has an agent with this id
     * @throws IllegalArgumentException if the name is blank or the definition is blank
     */
    public AgentRecord create(Scope scope, String name, String definition) {
        Checks.notNull(scope, "scope");
        MemoryErrors.checkAgent(name, definition);
        store.limits().check(definition, "agent definition");
        return store.write(rows -> {
            if (rows.agent(scope).isPresent()) {
                throw MemoryErrors.duplicateAgentId(scope);
            }
            store.checkQuota(rows, scope.userId(), new UserUsage(1, 0, 0, 0, 0));
            var now = store.now();
            AgentRecord record = new AgentRecord(scope, name, definition, now, now);
            rows.putAgent(record);
            return record;
        });
    }

    /**
     * Replaces an agent's name and definition.
     *
     * @throws NotFoundException if the agent does not exist
     */
    public AgentRecord update(Scope scope, String name, String definition) {
        Checks.notNull(scope, "scope");
        MemoryErrors.checkAgent(name, definition);
        store.limits().check(definition, "agent definition");
        return store.write(rows -> {
            AgentRecord existing = rows.agent(scope).orElseThrow(() -> MemoryErrors.noAgent(scope));
            AgentRecord record = new AgentRecord(scope, name, definition, existing.createdAt(), store.now());
            rows.putAgent(record);
            return record;
        });
    }

    /** The agent of that scope. */
    public Optional<AgentRecord> get(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> rows.agent(scope));
    }

    /** The user's agents with that name (several may share one), oldest first. */
    public List<AgentRecord> findByName(String userId, String name) {
        Checks.id(userId, "user id");
        Checks.notNull(name, "agent name");
        return store.read(rows -> rows.agentsByName(userId, name));
    }

    /** The user's agents, by name. */
    public List<AgentRecord> list(String userId) {
        Checks.id(userId, "user id");
        return store.read(rows -> rows.listAgents(userId));
    }

    /**
     * Removes the definition and detaches the archives and folders attached to the agent (they stay, with their
     * passages and files); returns whether there was one. Memory under the scope is kept.
     */
    public boolean delete(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.write(rows -> {
            boolean deleted = rows.deleteAgent(scope);
            if (deleted) {
                List<Archive> attached;
                try {
                    attached = rows.agentArchives(scope);
                } catch (UnsupportedOperationException noArchives) {
                    attached = List.of();
                }
                attached.forEach(a -> rows.detachArchive(scope.userId(), a.id(), scope.agentId()));
                List<Folder> folders;
                try {
                    folders = rows.agentFolders(scope);
                } catch (UnsupportedOperationException noFolders) {
                    folders = List.of();
                }
                folders.forEach(f -> rows.detachFolder(scope.userId(), f.id(), scope.agentId()));
            }
            return deleted;
        });
    }
}
