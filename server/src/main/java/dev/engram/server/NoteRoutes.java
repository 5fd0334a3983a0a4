package dev.engram.server;

import static io.helidon.http.Method.GET;

import dev.engram.agents.Agent;
import dev.engram.memory.Note;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * The notes an agent sees ({@code /v1/agents/{agent_id}/notes}, Engram's own; Letta has no notes): the notes of the
 * agent's user, which all that user's agents share, listed newest first ({@code limit}, 1 to 1000, default 100) and
 * searched ({@code /search?query=&top_k=}, each result with its {@code score} and {@code retrievers} as passage search
 * gives them, and {@code filter}, {@code min_score}, {@code as_of} as {@link SearchParams} reads them); a note's
 * versions at {@code /{note_id}/history}. Read-only: agents write notes with their tools.
 */
final class NoteRoutes {
    private final Api api;

    NoteRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return List.of(
                Route.agent(api, GET, "/v1/agents/{agent_id}/notes/search", this::search),
                Route.agent(api, GET, "/v1/agents/{agent_id}/notes/{note_id}/history", this::history),
                Route.agent(api, GET, "/v1/agents/{agent_id}/notes", this::list));
    }

    private void list(Agent agent, ServerRequest req, ServerResponse res) {
        int limit = Query.integer(req, "limit", 1, 1_000).orElse(100);
        long count = api.store.notes().count(agent.userId());
        List<Note> notes = new ArrayList<>(count == 0 ? List.of()
                : api.store.notes().list(agent.userId(), 0, (int) Math.min(count, Integer.MAX_VALUE)));
        notes.sort((a, b) -> b.updatedAt().compareTo(a.updatedAt()));
        Api.json(res, notes.stream().limit(limit).map(NoteRoutes::view).toList());
    }

    private void search(Agent agent, ServerRequest req, ServerResponse res) {
        String query = Query.string(req, "query").orElseThrow(() -> ApiException.invalid("missing", "Field required",
                "query", "query"));
        int k = Query.integer(req, "top_k", 1, SearchRequest.MAX_K).orElse(10);
        api.runtime.search().awaitIndexed();
        List<ObjectNode> results = new ArrayList<>();
        SearchRequest.Builder request = SearchRequest.builder(agent.scope(), query).domains(SearchDomain.NOTES).k(k);
        SearchParams.apply(req, request);
        for (SearchHit hit : api.runtime.search().search(request.build())) {
            Optional<Note> note = api.store.notes().get(agent.userId(), hit.id());
            if (note.isPresent()) {
                ObjectNode o = view(note.get());
                PassageRoutes.scores(o, hit);
                results.add(o);
            }
        }
        ObjectNode out = Body.JSON.createObjectNode();
        out.set("results", Body.JSON.createArrayNode().addAll(results));
        out.put("count", results.size());
        Api.json(res, out);
    }

    /** The versions of a note, oldest first: those it superseded, itself, and those that superseded it. */
    private void history(Agent agent, ServerRequest req, ServerResponse res) {
        String id = req.path().pathParameters().get("note_id");
        if (api.store.notes().get(agent.userId(), id).isEmpty()) {
            throw ApiException.notFound("Note '" + id + "' not found.");
        }
        Api.json(res, api.store.notes().history(agent.userId(), id).stream().map(NoteRoutes::view).toList());
    }

    private static ObjectNode view(Note n) {
        ObjectNode o = Body.JSON.createObjectNode().put("id", n.id()).put("content", n.content())
                .put("created_at", LettaViews.date(n.createdAt())).put("updated_at", LettaViews.date(n.updatedAt()));
        o.set("metadata", SearchParams.json(n.metadata()));
        o.put("valid_from", LettaViews.date(n.validFrom()));
        if (n.validTo().isPresent()) {
            o.put("valid_to", LettaViews.date(n.validTo().get()));
        } else {
            o.putNull("valid_to");
        }
        if (n.supersedes().isPresent()) {
            o.put("supersedes", n.supersedes().get());
        } else {
            o.putNull("supersedes");
        }
        return o;
    }
}
