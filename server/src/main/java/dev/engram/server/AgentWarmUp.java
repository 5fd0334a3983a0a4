package dev.engram.server;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.ChangeEvent;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Where the server's warm-up reaches what a search in a scope no one has cannot: the first request on a real agent
 * loads the agent (its definition, its tools), counts its prompt's tokens, and searches a scope with matches (Lucene's
 * scorers of both retrievers run only on hits). The warm-up takes the agent of the newest archival entry among the
 * store's last {@value #RECENT_CHANGES} changes (else of the newest change naming an existing agent) and a query made of
 * the first words of that entry, so that its search finds something; it only reads.
 */
final class AgentWarmUp {
    /** How many of the newest changes are looked through for an agent. */
    static final int RECENT_CHANGES = 200;
    /** How many words of an entry make the query. */
    static final int QUERY_WORDS = 8;

    /** The agent to warm up on, and a query that finds something in its archival memory (or a plain one). */
    record Target(Scope scope, String query) {
    }

    private AgentWarmUp() {
    }

    /** The agent the newest changes name, with a query from its newest archival entry; empty when no change names one. */
    static Optional<Target> target(MemoryStore store, String fallbackQuery) {
        long last = store.changes().lastSeq();
        List<ChangeEvent> recent = store.changes().since(Math.max(0, last - RECENT_CHANGES), RECENT_CHANGES);
        Optional<Scope> anyAgent = Optional.empty();
        for (int i = recent.size() - 1; i >= 0; i--) {
            ChangeEvent e = recent.get(i);
            if (e.agentId().isEmpty() || e.op() != ChangeEvent.Op.UPSERT) {
                continue;
            }
            Scope scope = Scope.of(e.userId(), e.agentId().get());
            if (e.entity() == ChangeEvent.Entity.ARCHIVAL && store.agents().get(scope).isPresent()) {
                Optional<ArchivalEntry> entry = store.archival().get(scope, e.id());
                if (entry.isPresent()) {
                    return Optional.of(new Target(scope, query(entry.get().content(), fallbackQuery)));
                }
            }
            if (anyAgent.isEmpty() && e.entity() != ChangeEvent.Entity.PASSAGE && store.agents().get(scope).isPresent()) {
                anyAgent = Optional.of(scope);
            }
        }
        return anyAgent.map(s -> new Target(s, fallbackQuery));
    }

    /** The first {@value #QUERY_WORDS} words of {@code text}, or {@code fallback} when it has none. */
    static String query(String text, String fallback) {
        String words = Arrays.stream(text.strip().split("\\s+")).limit(QUERY_WORDS).collect(Collectors.joining(" "));
        return words.isBlank() ? fallback : words;
    }
}
