package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.Archive;
import dev.engram.memory.Metadata;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.SupersededException;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * An agent's archival memory ({@code /v1/agents/{id}/archival-memory}): Letta's passages, listed, added, searched, deleted;
 * and Engram's own facts over time: a passage superseded by a new one ({@code /{memory_id}/supersede}) and its versions
 * ({@code /{memory_id}/history}).
 * A search result also carries Engram's {@code score} (the fused score) and {@code retrievers}: the rank and raw score
 * of the hit in each retriever's list that found it ({@code bm25}, {@code vector}). A search covers the agent's own
 * passages and those of the archives attached to it ({@link ArchiveRoutes}); each result's {@code archive_id} and
 * {@code archive_name} name the archive it came from (null for the agent's own). Adding and deleting here touch the
 * agent's own passages only.
 */
final class PassageRoutes {
    private final Api api;

    PassageRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return List.of(
                Route.agent(api, GET, "/v1/agents/{agent_id}/archival-memory/search", this::searchPassages),
                Route.agent(api, GET, "/v1/agents/{agent_id}/archival-memory", this::listPassages),
                Route.agent(api, POST, "/v1/agents/{agent_id}/archival-memory", this::createPassage),
                Route.agent(api, DELETE, "/v1/agents/{agent_id}/archival-memory/{memory_id}", this::deletePassage),
                Route.agent(api, POST, "/v1/agents/{agent_id}/archival-memory/{memory_id}/supersede", this::supersedePassage),
                Route.agent(api, GET, "/v1/agents/{agent_id}/archival-memory/{memory_id}/history", this::passageHistory));
    }

    private void listPassages(Agent agent, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, true);
        Optional<String> search = Query.string(req, "search");
        long count = api.store.archival().count(agent.scope());
        List<ArchivalEntry> entries = new ArrayList<>(count == 0 ? List.of()
                : api.store.archival().list(agent.scope(), 0, (int) Math.min(count, Integer.MAX_VALUE)));
        entries.sort(Comparator.comparing(ArchivalEntry::createdAt).thenComparing(ArchivalEntry::id));
        search.ifPresent(s -> entries.removeIf(e -> !e.content().toLowerCase(java.util.Locale.ROOT)
                .contains(s.toLowerCase(java.util.Locale.ROOT))));
        Api.json(res, pages.page(entries, ArchivalEntry::id, "passage").stream()
                .map(e -> LettaViews.passage(e, agent.id())).toList());
    }

    private void createPassage(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String text = body.requiredString("text");
        if (text.isBlank()) {
            throw body.problem("value_error", "The text is empty", "text");
        }
        List<String> tags = body.strings("tags").orElse(List.of());
        Metadata metadata = SearchParams.metadata(body);
        ArchivalEntry entry;
        try {
            entry = api.store.archival().insert(agent.scope(), new NewArchivalEntry(Optional.empty(), text, tags, metadata));
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", Incidents.clientText(e, "a passage"), "text");
        }
        Api.json(res, List.of(LettaViews.passage(entry, agent.id())));
    }

    /**
     * Engram's own: records that a passage's fact changed. The body is an insert's ({@code text}; {@code tags} and
     * {@code metadata}, each the old passage's when left out); the old passage keeps its text with a {@code valid_to},
     * and the new one, returned, names it in {@code supersedes}. 404 for a passage the agent does not have, 409 for one
     * already superseded (nothing is written).
     */
    private void supersedePassage(Agent agent, ServerRequest req, ServerResponse res) {
        String id = req.path().pathParameters().get("memory_id");
        ArchivalEntry old = api.store.archival().get(agent.scope(), id)
                .orElseThrow(() -> ApiException.notFound("Passage '" + id + "' not found."));
        Body body = Api.body(req);
        String text = body.requiredString("text");
        if (text.isBlank()) {
            throw body.problem("value_error", "The text is empty", "text");
        }
        List<String> tags = body.strings("tags").orElse(old.tags());
        Metadata metadata = body.has("metadata") ? SearchParams.metadata(body) : old.metadata();
        ArchivalEntry entry;
        try {
            entry = api.store.archival().supersede(agent.scope(), id, new NewArchivalEntry(Optional.empty(), text, tags,
                    metadata));
        } catch (SupersededException e) {
            throw ApiException.conflict(e.getMessage());
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", Incidents.clientText(e, "a passage"), "text");
        }
        Api.json(res, version(entry, agent.id()));
    }

    /** Engram's own: a passage's versions, oldest first: those it superseded, itself, and those that superseded it. */
    private void passageHistory(Agent agent, ServerRequest req, ServerResponse res) {
        String id = req.path().pathParameters().get("memory_id");
        if (api.store.archival().get(agent.scope(), id).isEmpty()) {
            throw ApiException.notFound("Passage '" + id + "' not found.");
        }
        Api.json(res, api.store.archival().history(agent.scope(), id).stream().map(e -> version(e, agent.id())).toList());
    }

    /** Letta's passage with the fields of a fact over time: {@code valid_from}, {@code valid_to}, {@code supersedes}. */
    private static ObjectNode version(ArchivalEntry e, String agentId) {
        ObjectNode o = LettaViews.passage(e, agentId);
        o.put("valid_from", LettaViews.date(e.validFrom()));
        if (e.validTo().isPresent()) {
            o.put("valid_to", LettaViews.date(e.validTo().get()));
        } else {
            o.putNull("valid_to");
        }
        if (e.supersedes().isPresent()) {
            o.put("supersedes", e.supersedes().get());
        } else {
            o.putNull("supersedes");
        }
        return o;
    }

    private void deletePassage(Agent agent, ServerRequest req, ServerResponse res) {
        String id = req.path().pathParameters().get("memory_id");
        if (!api.store.archival().delete(agent.scope(), id)) {
            throw ApiException.notFound("Passage '" + id + "' not found.");
        }
        Api.json(res, Body.JSON.createObjectNode());
    }

    private void searchPassages(Agent agent, ServerRequest req, ServerResponse res) {
        String query = Query.string(req, "query").orElseThrow(() -> ApiException.invalid("missing", "Field required",
                "query", "query"));
        int k = Query.integer(req, "top_k", 1, SearchRequest.MAX_K).orElse(10);
        Map<String, Archive> archives = new LinkedHashMap<>();
        api.store.archives().attached(agent.scope()).forEach(a -> archives.put(a.id(), a));
        SearchRequest.Builder search = SearchRequest.builder(agent.scope(), query).domains(SearchDomain.ARCHIVAL).k(k)
                .archives(archives.keySet());
        time(req, "start_datetime").ifPresent(search::from);
        time(req, "end_datetime").ifPresent(search::until);
        Set<String> tags = new LinkedHashSet<>(Query.all(req, "tags"));
        boolean allTags = Query.string(req, "tag_match_mode").map(m -> switch (m) {
            case "any" -> false;
            case "all" -> true;
            default -> throw ApiException.invalid("literal_error", "Input should be 'any' or 'all'", "query", "tag_match_mode");
        }).orElse(false);
        if (!tags.isEmpty() && !allTags) {
            search.tags(tags);
        }
        SearchParams.apply(req, search);
        Api.json(res, results(api.runtime.search(), agent.scope(), search.build(), archives, tags, allTags));
    }

    /**
     * The body of an archival search: {@code request} (in {@code scope}, covering {@code archives} by id) run through
     * {@code search} once the index has caught up with the store, each hit as Letta's passage with Engram's scores and
     * the archive it came from, those without all {@code tags} left out when {@code allTags}. The route's path, and the
     * server's warm-up's.
     */
    ObjectNode results(MemorySearch search, Scope scope, SearchRequest request, Map<String, Archive> archives,
            Set<String> tags, boolean allTags) {
        search.awaitIndexed();
        List<ObjectNode> results = new ArrayList<>();
        for (SearchHit hit : search.search(request)) {
            Optional<Archive> from = hit.archive().map(archives::get);
            Optional<ArchivalEntry> entry = api.store.archival().get(from.map(Archive::scope).orElse(scope), hit.id());
            if (entry.isEmpty() || (allTags && !entry.get().tags().containsAll(tags))) {
                continue;
            }
            ObjectNode o = Body.JSON.createObjectNode();
            o.put("id", entry.get().id());
            o.put("timestamp", LettaViews.date(entry.get().createdAt()));
            o.put("content", entry.get().content());
            entry.get().tags().forEach(o.withArray("tags")::add);
            o.withArray("tags");
            o.set("metadata", SearchParams.json(entry.get().metadata()));
            if (from.isPresent()) {
                o.put("archive_id", from.get().id());
                o.put("archive_name", from.get().name());
            } else {
                o.putNull("archive_id");
                o.putNull("archive_name");
            }
            scores(o, hit);
            results.add(o);
        }
        ObjectNode out = Body.JSON.createObjectNode();
        out.set("results", Body.JSON.createArrayNode().addAll(results));
        out.put("count", results.size());
        return out;
    }

    /** Engram's own fields of a search result: the fused {@code score} and each retriever's rank and raw score. */
    static void scores(ObjectNode o, SearchHit hit) {
        o.put("score", hit.score());
        ObjectNode retrievers = o.putObject("retrievers");
        hit.bm25().ifPresent(c -> retrievers.putObject("bm25").put("rank", c.rank()).put("score", c.score()));
        hit.vector().ifPresent(c -> retrievers.putObject("vector").put("rank", c.rank()).put("score", c.score()));
    }

    private static Optional<Instant> time(ServerRequest req, String name) {
        return Query.string(req, name).map(v -> {
            try {
                return java.time.OffsetDateTime.parse(v).toInstant();
            } catch (DateTimeParseException e) {
                try {
                    return java.time.LocalDateTime.parse(v).toInstant(java.time.ZoneOffset.UTC);
                } catch (DateTimeParseException e2) {
                    throw ApiException.invalid("datetime_parsing", "Input should be a valid datetime (ISO 8601)", "query", name);
                }
            }
        });
    }
}
