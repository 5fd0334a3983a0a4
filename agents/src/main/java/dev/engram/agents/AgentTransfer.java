package dev.engram.agents;

import dev.engram.framework.ModelPolicy;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Agents in and out of files: Engram's own agent file ({@link AgentFiles}) and Letta's Agent File
 * ({@link LettaAgentFile}). An import checks everything it can before it stores anything, so that a
 * malformed file changes nothing.
 */
final class AgentTransfer {
    private final MemoryStore store;
    private final AgentRegistry agents;
    private final ModelPolicy models;
    private final int maxImportedSteps;

    AgentTransfer(MemoryStore store, AgentRegistry agents, ModelPolicy models, int maxImportedSteps) {
        this.store = store;
        this.agents = agents;
        this.models = models;
        this.maxImportedSteps = maxImportedSteps;
    }

    /** What a file may ask of this runtime now (its tools can change while it runs). */
    private ImportGrants grants() {
        return new ImportGrants(models, maxImportedSteps, java.util.Set.copyOf(agents.availableTools()));
    }

    /** Every message of the agent, oldest first. */
    List<ConversationMessage> messages(Scope scope) {
        List<ConversationMessage> messages = new ArrayList<>();
        long after = 0;
        while (true) {
            List<ConversationMessage> page = store.messages().list(scope,
                    MessageQuery.all().withIdRange(after, Long.MAX_VALUE).withLimit(1_000));
            messages.addAll(page);
            if (page.size() < 1_000) {
                return messages;
            }
            after = page.getLast().id();
        }
    }

    /** Every archival entry of the agent, oldest first. */
    List<ArchivalEntry> archival(Scope scope) {
        List<ArchivalEntry> archival = new ArrayList<>();
        for (int offset = 0; ; offset += 500) {
            List<ArchivalEntry> page = store.archival().list(scope, offset, 500);
            archival.addAll(page);
            if (page.size() < 500) {
                break;
            }
        }
        java.util.Collections.reverse(archival); // the store lists newest first; import re-inserts in order
        return archival;
    }

    /** The text of an agent file. */
    static String read(java.nio.file.Path file) {
        try {
            return java.nio.file.Files.readString(file);
        } catch (java.io.IOException e) {
            throw new AgentException("Cannot read agent file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes {@link #exportEngram} to {@code file}, creating its directory. */
    void exportEngram(Agent agent, java.nio.file.Path file) {
        String json = exportEngram(agent);
        try {
            java.nio.file.Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                java.nio.file.Files.createDirectories(parent);
            }
            java.nio.file.Files.writeString(file, json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot write agent file " + file + ": " + e.getMessage(), e);
        }
    }

    String exportEngram(Agent agent) {
        Scope scope = agent.scope();
        return AgentFiles.exportJson(agent.definition(), store.blocks().list(scope), archival(scope), messages(scope));
    }

    /**
     * Imports an Engram agent file for {@code userId} (never the file's user): its models must be allowed unless
     * {@code model} replaces them; what it asks beyond the importer's defaults is dropped and reported.
     */
    AgentFileImport importEngram(String json, String source, String userId, Optional<String> agentId, Optional<String> model) {
        AgentFiles.Contents c = AgentFiles.parse(json, "agent file " + source);
        AgentDefinition base = c.definition();
        ImportGrants grants = grants();
        if (model.isEmpty()) {
            checkModel(grants, source, "agent.model", base.model());
            base.sleeptime().ifPresent(st -> checkModel(grants, source, "agent.sleeptime.model", st.model()));
        }
        List<DroppedGrant> dropped = new ArrayList<>();
        if (!base.userId().equals(userId)) {
            dropped.add(new DroppedGrant(base.name(), "agent.user_id", base.userId(), "the agent belongs to the importing "
                    + "user '" + userId + "'; a file never chooses its owner"));
        }
        // Without an id asked for, a file imported again gives a second agent (as in Letta), under a free id.
        AgentDefinition.Builder b = base.toBuilder(userId).id(agentId.orElseGet(() -> freeId(userId, base.id(), Set.of())));
        model.ifPresent(m -> {
            b.model(m).contextWindowTokens(ContextWindows.clamp(m, base.contextWindowTokens()));
            base.sleeptime().ifPresent(st -> b.sleeptime(new SleeptimeSettings(st.everyMessages(), st.idleAfter(), m, st.maxSteps())));
        });
        AgentDefinition definition = grants.limit(b.build(), "agent.", java.util.Set.of(), dropped);
        List<NewBlock> blocks = new ArrayList<>();
        for (int i = 0; i < c.blocks().size(); i++) {
            blocks.add(grants.limit(c.blocks().get(i), definition.name(), "blocks[" + i + "].permission", dropped));
        }
        Agent agent = inOneUnit(() -> store(definition, blocks, c.archival(), c.messages(), c.inContext()), List::of);
        return new AgentFileImport(List.of(agent), List.of(), dropped);
    }

    /** Refuses a file's model that the policy does not allow, naming the field; nothing is stored then. */
    private static void checkModel(ImportGrants grants, String source, String field, String spec) {
        grants.modelRefusal(spec).ifPresent(problem -> {
            throw new AgentException("Agent file " + source + ": " + field + " " + problem + ". Nothing was stored.");
        });
    }

    /**
     * Runs an import as one unit of work of the store, so that it stores everything or (whatever fails, whenever:
     * a check, a write half-way, another process creating the same name meanwhile) nothing; loads the agents it
     * created once the unit has committed (inside a caller's unit, which may still roll back, none: each is loaded from
     * the store when first asked for).
     */
    private <T> T inOneUnit(java.util.function.Supplier<T> work, java.util.function.Function<T, List<Agent>> created) {
        boolean inCallersUnit = store.isInTransaction();
        T result;
        try {
            result = store.inTransaction(tx -> work.get());
        } catch (IllegalArgumentException e) {
            // A value the store refused half-way (e.g. a text over its MemoryLimits): the unit stored nothing.
            throw new AgentException(e.getMessage() + " Nothing was stored.", e);
        }
        if (!inCallersUnit) {
            // committed; inside a caller's unit, which may yet roll back, an agent is loaded when next asked for
            created.apply(result).forEach(agents::remember);
        }
        return result;
    }

    /** Stores a checked agent with its memory inside the caller's unit of work; the caller has validated everything. */
    Agent store(AgentDefinition definition, List<NewBlock> blocks, List<NewArchivalEntry> archival, List<NewMessage> messages,
            List<Boolean> inContext) {
        checkFree(definition);
        Agent agent = agents.stage(definition, blocks, false);
        Scope scope = agent.scope();
        if (!archival.isEmpty()) {
            store.archival().insertAll(scope, archival);
        }
        if (!messages.isEmpty()) {
            List<ConversationMessage> stored = store.messages().appendAll(scope, messages);
            List<Long> evicted = new ArrayList<>();
            for (int i = 0; i < stored.size(); i++) {
                if (!inContext.get(i)) {
                    evicted.add(stored.get(i).id());
                }
            }
            store.messages().markOutOfContext(scope, evicted);
        }
        return agent;
    }

    /**
     * Imports every agent of a Letta agent file for {@code userId}: all of them, or (when anything in the
     * file is wrong) none.
     *
     * @param agentId the Engram id, for a file of one agent; by default each agent's id comes from its name
     */
    AgentFileImport importLetta(AgentImport options) {
        return inOneUnit(() -> importLettaWhole(options), AgentFileImport::agents);
    }

    private AgentFileImport importLettaWhole(AgentImport options) {
        String source = options.source();
        String userId = options.user();
        Optional<String> agentId = options.agentId();
        Optional<String> model = options.model();
        LettaAgentFile file = LettaAgentFile.parse(options.json(), source);
        file.apply(options);
        int n = file.agentCount();
        if (n == 0) {
            throw new AgentException("Agent file " + source + " holds no agents. Nothing was stored.");
        }
        if (agentId.isPresent() && n > 1) {
            throw new AgentException("Agent file " + source + " holds " + n + " agents; an id can only be given for a file of one. "
                    + "Nothing was stored.");
        }
        List<String> ids = new ArrayList<>();
        for (String name : file.names()) {
            ids.add(agentId.or(() -> options.newIds().map(Supplier::get))
                    .orElseGet(() -> freeId(userId, LettaAgentFile.slug(name), Set.copyOf(ids))));
        }
        ImportGrants grants = grants();
        List<DroppedGrant> dropped = new ArrayList<>();
        List<LettaAgentFile.Mapped> mapped = file.map(userId, ids, model, java.util.Set.copyOf(agents.availableTools()), grants,
                dropped);
        for (LettaAgentFile.Mapped m : mapped) {
            checkFree(m.definition());
            agents.checkTools(m.definition());
        }
        List<Agent> created = new ArrayList<>();
        for (LettaAgentFile.Mapped m : mapped) {
            created.add(store(m.definition(), m.blocks(), List.of(), m.messages(), m.inContext()));
        }
        LettaFolders.importInto(file.root(), file.agentNodes(), created, userId, store, agents, dropped);
        List<Agent> current = new ArrayList<>();
        created.forEach(a -> current.add(agents.agent(userId, a.id())));
        return new AgentFileImport(current, file.warnings(), dropped);
    }

    /** The agents as one Letta agent file, with the blocks they share written once. */
    String exportLetta(List<Agent> list) {
        java.util.Map<String, dev.engram.framework.ToolDefinition> tools = agents.toolDefinitions();
        List<LettaAgentFileWriter.Entry> entries = new ArrayList<>();
        for (Agent a : list) {
            entries.add(new LettaAgentFileWriter.Entry(a.definition(), store.blocks().list(a.scope()), messages(a.scope()), tools));
        }
        return LettaFolders.export(LettaAgentFileWriter.write(entries), list, store);
    }

    /** {@code base}, or {@code base-2}, {@code base-3}, ...: the first id the user has no agent or memory under, nor in {@code alsoTaken}. */
    private String freeId(String userId, String base, Set<String> alsoTaken) {
        String id = base;
        for (int k = 2; alsoTaken.contains(id) || store.agents().get(Scope.of(userId, id)).isPresent()
                || hasMemory(Scope.of(userId, id)); k++) {
            String suffix = "-" + k;
            id = (base.length() + suffix.length() > 100 ? base.substring(0, 100 - suffix.length()) : base) + suffix;
        }
        return id;
    }

    /** Whether anything is stored under the scope (a deleted agent's memory stays). */
    private boolean hasMemory(Scope scope) {
        return !store.blocks().list(scope).isEmpty() || store.messages().count(scope) > 0 || store.archival().count(scope) > 0;
    }

    /** Refuses an id that has memory or is taken, before anything is stored. */
    void checkFree(AgentDefinition definition) {
        Scope scope = definition.scope();
        if (store.messages().count(scope) > 0 || store.archival().count(scope) > 0) {
            throw new AgentException("Agent id '" + definition.id() + "' already has memory in this store; import it "
                    + "under another id. Nothing was stored.");
        }
        if (store.agents().get(scope).isPresent()) {
            throw new AgentException("User '" + definition.userId() + "' already has an agent with id '" + definition.id()
                    + "'. Nothing was stored.");
        }
    }
}
