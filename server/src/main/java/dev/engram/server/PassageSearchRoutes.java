package dev.engram.server;

import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Archive;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST /v1/passages/search}: archival memory across the caller's agents and archives, as Letta's
 * {@code PassageSearchResult}s (the passage, its fused {@code score}, and in {@code metadata} the {@code agent_id} or
 * {@code archive_id} it belongs to and each retriever's rank and score). Searched: the archive {@code archive_id} names;
 * else the agent {@code agent_id} names with the archives attached to it; else every agent's own passages and every
 * archive of the caller's. Each place is searched with Engram's hybrid search and the best {@code limit} kept; without a
 * {@code query}, the newest passages that match the filters ({@code score} 0).
 */
final class PassageSearchRoutes {
    private static final int MAX_RESULTS = 100;

    private final Api api;

    PassageSearchRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table().twin(Route.caller(POST, "/v1/passages/search", this::search)).list();
    }

    /** Where passages are kept: an agent's own archival memory, or an archive; with its owner's id for the view. */
    private record Place(Scope scope, String ownerId, boolean archive) {
    }

    private record Found(ArchivalEntry entry, Place place, Optional<SearchHit> hit) {
        double score() {
            return hit.map(SearchHit::score).orElse(0.0);
        }
    }

    private void search(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        int limit = body.integer("limit").orElse(50);
        if (limit < 1 || limit > MAX_RESULTS) {
            throw body.problem("value_error", "Input should be between 1 and " + MAX_RESULTS, "limit");
        }
        Optional<String> query = body.string("query");
        if (query.isPresent() && query.get().isBlank()) {
            throw body.problem("value_error", "The query is empty", "query");
        }
        Set<String> tags = new LinkedHashSet<>(body.strings("tags").orElse(List.of()));
        boolean allTags = switch (body.string("tag_match_mode").orElse("any")) {
            case "any" -> false;
            case "all" -> true;
            default -> throw body.problem("enum", "Input should be 'any' or 'all'", "tag_match_mode");
        };
        Optional<Instant> from = MessageSearchRoutes.date(body, "start_date");
        Optional<Instant> until = MessageSearchRoutes.date(body, "end_date");
        List<Place> places = places(caller, body.string("agent_id"), body.string("archive_id"));
        List<Found> found = new ArrayList<>();
        for (Place place : places) {
            if (query.isEmpty()) {
                long count = api.store.archival().count(place.scope());
                List<ArchivalEntry> all = count == 0 ? List.of()
                        : api.store.archival().list(place.scope(), 0, (int) Math.min(count, Integer.MAX_VALUE));
                all.stream().filter(e -> from.map(f -> !e.createdAt().isBefore(f)).orElse(true)
                        && until.map(u -> e.createdAt().isBefore(u)).orElse(true) && tagged(e, tags, allTags))
                        .forEach(e -> found.add(new Found(e, place, Optional.empty())));
                continue;
            }
            SearchRequest.Builder search = SearchRequest.builder(place.scope(), query.get()).domains(SearchDomain.ARCHIVAL)
                    .k(allTags ? SearchRequest.MAX_K : limit);
            from.ifPresent(search::from);
            until.ifPresent(search::until);
            if (!tags.isEmpty() && !allTags) {
                search.tags(tags);
            }
            SearchRequest request;
            try {
                request = search.build();
            } catch (IllegalArgumentException e) {
                throw body.problem("value_error", Incidents.clientText(e, "a search"), "query");
            }
            api.runtime.search().awaitIndexed();
            for (SearchHit hit : api.runtime.search().search(request)) {
                api.store.archival().get(place.scope(), hit.id()).filter(e -> tagged(e, tags, allTags))
                        .ifPresent(e -> found.add(new Found(e, place, Optional.of(hit))));
            }
        }
        found.sort(query.isPresent() ? Comparator.comparingDouble(Found::score).reversed()
                : Comparator.comparing((Found f) -> f.entry().createdAt()).reversed().thenComparing(f -> f.entry().id()));
        List<ObjectNode> out = new ArrayList<>();
        for (Found f : found.subList(0, Math.min(limit, found.size()))) {
            ObjectNode o = Body.JSON.createObjectNode();
            o.set("passage", LettaViews.passage(f.entry(), f.place().ownerId()));
            o.put("score", f.score());
            ObjectNode meta = o.putObject("metadata");
            if (f.place().archive()) {
                meta.put("archive_id", f.place().ownerId()).putNull("agent_id");
            } else {
                meta.putNull("archive_id").put("agent_id", f.place().ownerId());
            }
            f.hit().ifPresent(h -> PassageRoutes.scores(meta, h));
            out.add(o);
        }
        Api.json(res, out);
    }

    private static boolean tagged(ArchivalEntry e, Set<String> tags, boolean allTags) {
        return tags.isEmpty() || (allTags ? e.tags().containsAll(tags) : e.tags().stream().anyMatch(tags::contains));
    }

    /** The places a search covers (a 404 for an agent or archive the caller does not have). */
    private List<Place> places(Caller caller, Optional<String> agentId, Optional<String> archiveId) {
        if (archiveId.isPresent()) {
            Archive archive = archive(caller, archiveId.get());
            if (agentId.isPresent() && api.store.archives().attached(api.agent(caller, agentId.get()).scope()).stream()
                    .noneMatch(a -> a.id().equals(archive.id()))) {
                return List.of();
            }
            return List.of(new Place(archive.scope(), archive.id(), true));
        }
        Map<String, Place> places = new LinkedHashMap<>();
        if (agentId.isPresent()) {
            Agent agent = api.agent(caller, agentId.get());
            places.put(agent.id(), new Place(agent.scope(), agent.id(), false));
            api.store.archives().attached(agent.scope()).forEach(a -> places.put(a.id(), new Place(a.scope(), a.id(), true)));
            return List.copyOf(places.values());
        }
        for (String user : api.users(caller)) {
            for (AgentRecord r : api.store.agents().list(user)) {
                places.put(r.scope().agentId(), new Place(r.scope(), r.scope().agentId(), false));
            }
            api.store.archives().list(user).forEach(a -> places.put(a.id(), new Place(a.scope(), a.id(), true)));
        }
        return List.copyOf(places.values());
    }

    private Archive archive(Caller caller, String id) {
        for (String user : api.users(caller)) {
            Optional<Archive> archive = api.store.archives().get(user, id);
            if (archive.isPresent()) {
                return archive.get();
            }
        }
        throw ApiException.notFound("Archive '" + id + "' not found.");
    }
}
