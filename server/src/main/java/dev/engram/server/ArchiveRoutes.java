package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Archive;
import dev.engram.memory.Metadata;
import dev.engram.memory.NewArchivalEntry;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Archives shared by agents ({@code /v1/archives}, Letta's): a user's named collections of passages, attached to several
 * of the user's agents ({@code PATCH /v1/agents/{id}/archives/attach|detach/{archive_id}}), whose archival search then
 * covers them. Scoped as standalone blocks are: a user's key sees and changes only that user's archives (another's is a
 * 404, and nothing changes), an admin key every user's, and an archive is attached only to an agent of its own user.
 * {@code GET /v1/archives/{id}/passages} is Engram's own (Letta lists an archive's passages nowhere).
 */
final class ArchiveRoutes {
    private final Api api;

    ArchiveRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/archives", this::list))
                .twin(Route.caller(POST, "/v1/archives", this::create))
                .add(Route.caller(GET, "/v1/archives/{archive_id}", this::retrieve))
                .add(Route.caller(PATCH, "/v1/archives/{archive_id}", this::modify))
                .add(Route.caller(DELETE, "/v1/archives/{archive_id}", this::delete))
                .add(Route.caller(GET, "/v1/archives/{archive_id}/agents", this::agents))
                .add(Route.caller(GET, "/v1/archives/{archive_id}/passages", this::passages))
                .add(Route.caller(POST, "/v1/archives/{archive_id}/passages/batch", this::insertBatch))
                .add(Route.caller(POST, "/v1/archives/{archive_id}/passages", this::insert))
                .add(Route.caller(DELETE, "/v1/archives/{archive_id}/passages/{passage_id}", this::deletePassage))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/archives/attach/{archive_id}", this::attach))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/archives/detach/{archive_id}", this::detach))
                .list();
    }

    private void create(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String name = body.requiredString("name");
        String description = body.string("description").orElse("");
        Archive archive;
        try {
            archive = api.store.archives().create(caller.user().orElse(Api.DEFAULT_USER), name, description);
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", e.getMessage(), e.getMessage().contains("description") ? "description" : "name");
        }
        Api.json(res, view(archive));
    }

    /** The caller's archives, newest first by default; {@code name} (exact) and {@code agent_id} (attached to) filter. */
    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, false);
        Optional<String> name = Query.string(req, "name");
        Optional<String> agentId = Query.string(req, "agent_id");
        List<Archive> archives = new ArrayList<>();
        if (agentId.isPresent()) {
            archives.addAll(api.store.archives().attached(api.agent(caller, agentId.get()).scope()));
        } else {
            for (String user : api.users(caller)) {
                archives.addAll(api.store.archives().list(user));
            }
        }
        archives.removeIf(a -> name.map(n -> !n.equals(a.name())).orElse(false));
        archives.sort(Comparator.comparing(Archive::createdAt).thenComparing(Archive::id));
        Api.json(res, pages.page(archives, Archive::id, "archive").stream().map(ArchiveRoutes::view).toList());
    }

    private void retrieve(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, view(archive(caller, req)));
    }

    private void modify(Caller caller, ServerRequest req, ServerResponse res) {
        Archive archive = archive(caller, req);
        Body body = Api.body(req);
        String name = body.string("name").orElse(archive.name());
        String description = body.string("description").orElse(archive.description());
        try {
            Api.json(res, view(api.store.archives().update(archive.userId(), archive.id(), name, description)));
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", e.getMessage(), e.getMessage().contains("description") ? "description" : "name");
        }
    }

    private void delete(Caller caller, ServerRequest req, ServerResponse res) {
        Archive archive = archive(caller, req);
        api.store.archives().delete(archive.userId(), archive.id());
        noContent(res);
    }

    /** Letta's {@code AgentState} of each agent the archive is attached to, newest attached first by default. */
    private void agents(Caller caller, ServerRequest req, ServerResponse res) {
        Archive archive = archive(caller, req);
        Pages pages = Pages.of(req, 50, false);
        List<Agent> agents = new ArrayList<>();
        for (String id : api.store.archives().agents(archive.userId(), archive.id())) {
            try {
                agents.add(api.agent(caller, id));
            } catch (ApiException gone) {
                // attached to an agent deleted since: not listed
            }
        }
        Api.json(res, pages.page(agents, Agent::id, "agent").stream().map(api::agentState).toList());
    }

    /** The archive's passages, oldest first by default (Engram's own route; Letta has none). */
    private void passages(Caller caller, ServerRequest req, ServerResponse res) {
        Archive archive = archive(caller, req);
        Pages pages = Pages.of(req, 100, true);
        List<ArchivalEntry> entries = new ArrayList<>();
        for (int offset = 0; ; offset += 1_000) {
            List<ArchivalEntry> page = api.store.archives().passages(archive.userId(), archive.id(), offset, 1_000);
            entries.addAll(page);
            if (page.size() < 1_000) {
                break;
            }
        }
        // the store lists newest first, passages of one batch (one timestamp) in reverse order of insertion: reversed,
        // oldest first and a batch in its own order (sorting by time would leave a batch's ties in reverse)
        Collections.reverse(entries);
        Api.json(res, pages.page(entries, ArchivalEntry::id, "passage").stream()
                .map(e -> LettaViews.passage(e, archive.id())).toList());
    }

    private void insert(Caller caller, ServerRequest req, ServerResponse res) {
        Archive archive = archive(caller, req);
        Body body = Api.body(req);
        NewArchivalEntry passage = passage(body);
        ArchivalEntry stored = store(archive, List.of(passage), body).getFirst();
        Api.json(res, LettaViews.passage(stored, archive.id()));
    }

    private void insertBatch(Caller caller, ServerRequest req, ServerResponse res) {
        Archive archive = archive(caller, req);
        Body body = Api.body(req);
        if (!body.has("passages")) {
            throw body.problem("missing", "Field required", "passages");
        }
        List<Body> items = body.objects("passages").orElseThrow(() -> body.problem("list_type", "Input should be a valid list",
                "passages"));
        List<NewArchivalEntry> passages = new ArrayList<>(items.size());
        for (Body item : items) {
            passages.add(passage(item));
        }
        Api.json(res, store(archive, passages, body).stream().map(e -> LettaViews.passage(e, archive.id())).toList());
    }

    /** Stores passages, all or none; a text the store refuses is a 422 naming it. */
    private List<ArchivalEntry> store(Archive archive, List<NewArchivalEntry> passages, Body body) {
        try {
            return api.store.archives().insert(archive.userId(), archive.id(), passages);
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", Incidents.clientText(e, "a passage"), "text");
        }
    }

    /** A {@code PassageCreateRequest}: {@code text} (not blank), {@code tags}, {@code metadata}. */
    private static NewArchivalEntry passage(Body body) {
        String text = body.requiredString("text");
        if (text.isBlank()) {
            throw body.problem("value_error", "The text is empty", "text");
        }
        List<String> tags = body.strings("tags").orElse(List.of());
        Metadata metadata = SearchParams.metadata(body);
        try {
            return new NewArchivalEntry(Optional.empty(), text, tags, metadata);
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", Incidents.clientText(e, "a passage"), "text");
        }
    }

    private void deletePassage(Caller caller, ServerRequest req, ServerResponse res) {
        Archive archive = archive(caller, req);
        String id = req.path().pathParameters().get("passage_id");
        if (!api.store.archives().deletePassage(archive.userId(), archive.id(), id)) {
            throw ApiException.notFound("Passage '" + id + "' not found in archive '" + archive.id() + "'.");
        }
        noContent(res);
    }

    private void attach(Agent agent, ServerRequest req, ServerResponse res) {
        String archiveId = req.path().pathParameters().get("archive_id");
        api.store.archives().attach(agent.scope(), own(agent, archiveId).id());
        Api.json(res, Body.JSON.nullNode());
    }

    private void detach(Agent agent, ServerRequest req, ServerResponse res) {
        String archiveId = req.path().pathParameters().get("archive_id");
        api.store.archives().detach(agent.scope(), own(agent, archiveId).id());
        Api.json(res, Body.JSON.nullNode());
    }

    /** The archive of the agent's own user that the path names; a 404 for any other. */
    private Archive own(Agent agent, String archiveId) {
        return api.store.archives().get(agent.scope().userId(), archiveId)
                .orElseThrow(() -> ApiException.notFound("Archive '" + archiveId + "' not found."));
    }

    /** The archive of one of the caller's users that the path names; a 404 (never a 403) when none has it. */
    private Archive archive(Caller caller, ServerRequest req) {
        String id = req.path().pathParameters().get("archive_id");
        for (String user : api.users(caller)) {
            Optional<Archive> a = api.store.archives().get(user, id);
            if (a.isPresent()) {
                return a.get();
            }
        }
        throw ApiException.notFound("Archive '" + id + "' not found.");
    }

    private static void noContent(ServerResponse res) {
        res.status(Status.NO_CONTENT_204);
        res.send();
    }

    /** Letta's {@code Archive}. */
    static ObjectNode view(Archive a) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", a.id());
        o.put("name", a.name());
        if (a.description().isEmpty()) {
            o.putNull("description");
        } else {
            o.put("description", a.description());
        }
        o.put("vector_db_provider", "native");
        // Required by Letta's Archive schema; a server is one organization (as GET /v1/metadata/user says).
        o.put("organization_id", "engram");
        o.putNull("embedding_config");
        o.putObject("metadata");
        o.putNull("created_by_id");
        o.putNull("last_updated_by_id");
        o.put("created_at", LettaViews.date(a.createdAt()));
        o.put("updated_at", LettaViews.date(a.updatedAt()));
        return o;
    }
}
