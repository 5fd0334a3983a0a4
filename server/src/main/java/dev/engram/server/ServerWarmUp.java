package dev.engram.server;

import dev.engram.memory.Archive;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code EngramServer.warmUp()}'s work: archival searches through the server's own search path, {@value #ROUNDS} rounds
 * of a few queries in a scope no user has, then what the first request on a real agent adds ({@link AgentWarmUp}). It
 * reads, and stores nothing; it ends early once the server is stopped.
 */
final class ServerWarmUp {
    /** Rounds of the warm-up's queries: enough for the JIT to compile the search path's hot code. */
    static final int ROUNDS = 5;
    /** A scope no one has: the warm-up's searches find nothing and read no one's memory. */
    static final Scope SCOPE = Scope.of("engram-warm-up", "engram-warm-up");
    /** Queries of a few lengths (in tokens: about 5, 15 and 40): the embedding model plans each input shape once. */
    static final List<String> QUERIES = List.of("warm up the search",
            "what did Maya say about the field report and the octopus migration study",
            "a longer question, as an agent asks when it searches its archival memory for what the user said about a "
                    + "project, its deadlines, the people involved and the places they travelled to last spring");

    private ServerWarmUp() {
    }

    /** Warms the server's parts up, on the calling thread; a failure of the search is thrown, one of the agent's part ends it. */
    static void run(ServerParts parts) {
        try {
            parts.runtime.toolRegistry(); // every tool's schema and validator, which the built-ins generate at first use
        } catch (RuntimeException e) {
            // a tool whose schema cannot be generated: the requests that use it say so
        }
        Optional<AgentWarmUp.Target> agent = parts.closed() ? Optional.empty()
                : AgentWarmUp.target(parts.store, QUERIES.getFirst());
        for (int round = 0; round < ROUNDS; round++) {
            for (String query : QUERIES) {
                if (parts.closed()) {
                    return;
                }
                SearchRequest request = SearchRequest.builder(SCOPE, query).domains(SearchDomain.ARCHIVAL).build();
                Body.JSON.writeValueAsBytes(parts.passages.results(parts.search, SCOPE, request, Map.of(), Set.of(), false));
            }
        }
        if (agent.isEmpty() || parts.closed()) {
            return;
        }
        Scope scope = agent.get().scope();
        try {
            parts.runtime.current(scope.userId(), scope.agentId()).compilePrompt();
            Map<String, Archive> archives = new LinkedHashMap<>();
            parts.store.archives().attached(scope).forEach(a -> archives.put(a.id(), a));
            for (int round = 0; round < ROUNDS && !parts.closed(); round++) {
                SearchRequest request = SearchRequest.builder(scope, agent.get().query()).domains(SearchDomain.ARCHIVAL)
                        .archives(archives.keySet()).build();
                Body.JSON.writeValueAsBytes(parts.passages.results(parts.search, scope, request, archives, Set.of(), false));
            }
        } catch (RuntimeException e) {
            // the agent was deleted meanwhile, its model cannot be resolved, the server closed: its first request says so
        }
    }
}
