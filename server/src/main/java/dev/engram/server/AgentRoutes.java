package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentFileImport;
import dev.engram.agents.AgentImport;
import dev.engram.agents.AgentType;
import dev.engram.agents.LettaModels;
import dev.engram.agents.ModelSettings;
import dev.engram.agents.SleeptimeSettings;
import dev.engram.agents.ToolRules;
import dev.engram.framework.ModelPolicy;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.Block;
import dev.engram.memory.Folder;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code /v1/agents}: create, list, count, retrieve, modify, delete, import and export. */
final class AgentRoutes {
    /** Letta's {@code CreateBlock.limit} default. */
    static final int LETTA_BLOCK_LIMIT = 100_000;

    private final Api api;

    AgentRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .add(Route.caller(GET, "/v1/agents/count", this::count))
                .add(Route.caller(POST, "/v1/agents/import", new ImportRoute(api)::handle))
                .twin(Route.caller(GET, "/v1/agents", this::list))
                .twin(Route.caller(POST, "/v1/agents", this::create))
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/export", this::export))
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}", this::retrieve))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}", this::modify))
                .add(Route.agent(api, DELETE, "/v1/agents/{agent_id}", this::delete))
                .list();
    }

    private void create(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        AgentFields.refuseUnsupported(body);
        String user = ownerOf(caller, body);
        String id = Ids.newAgentId();
        String model = model(body, api.runtime.modelPolicy()).orElse(api.settings.defaultModel());
        AgentDefinition.Builder b = AgentDefinition.builder(user).id(id)
                .name(body.string("name").orElse(id.substring(0, "agent-".length() + 8))).model(model);
        b.agentType(agentType(body));
        body.string("system").ifPresent(b::systemPrompt);
        body.integer("context_window_limit").ifPresent(b::contextWindowTokens);
        body.strings("tags").ifPresent(b::tags);
        body.raw("tool_rules").ifPresent(rules -> b.toolRules(toolRules(body, rules)));
        List<String> tools = new ArrayList<>(body.bool("include_base_tools").orElse(true) ? AgentDefinition.DEFAULT_TOOLS : List.of());
        Set<String> offered = new LinkedHashSet<>(api.runtime.availableTools());
        api.store.customTools().list(user).forEach(t -> offered.add(t.name()));
        body.strings("tools").ifPresent(names -> tools.addAll(RequestedTools.resolve(names, offered, "")));
        body.strings("tool_ids").ifPresent(ids -> tools.addAll(RequestedTools.resolve(toolNames(user, ids), offered, "tool-")));
        b.tools(List.copyOf(new LinkedHashSet<>(tools)));
        for (Body block : body.objects("memory_blocks").orElse(List.of())) {
            b.block(newBlock(block));
        }
        for (String blockId : body.strings("block_ids").orElse(List.of())) {
            Block shared = api.block(user, blockId);
            b.sharedBlock(shared.ownerAgentId(), shared.label(), shared.permission());
        }
        if (body.bool("enable_sleeptime").orElse(false)) {
            b.sleeptime(SleeptimeSettings.of(model));
        }
        AgentFields.apply(body, b, ModelSettings.PROVIDER_DEFAULTS);
        AgentDefinition definition = build(b);
        List<Folder> folders = AgentFolderRoutes.requested(api, body, user);
        api.quotas.agent(definition);
        Agent agent = api.runtime.create(definition);
        for (Folder f : folders) {
            agent = api.runtime.attachFolder(user, agent.id(), f.id());
        }
        Api.json(res, api.agentState(agent));
    }

    /**
     * The user a new agent belongs to: the caller's own; for an admin key, the one identity named in
     * {@code identity_ids} (an identity is a user), else {@link Api#DEFAULT_USER}.
     */
    private String ownerOf(Caller caller, Body body) {
        List<String> identities = body.strings("identity_ids").orElse(List.of());
        if (identities.size() > 1) {
            throw body.problem("too_long", "An agent belongs to one identity (one Engram user); name at most one",
                    "identity_ids");
        }
        Optional<String> named = identities.stream().findFirst().map(Identities::userOf);
        if (caller.user().isPresent()) {
            if (named.isPresent() && !named.get().equals(caller.user().get())) {
                throw ApiException.notFound("Identity '" + identities.getFirst() + "' not found.");
            }
            return caller.user().get();
        }
        if (named.isPresent() && api.store.identities().get(named.get()).isEmpty()) {
            throw ApiException.notFound("Identity '" + identities.getFirst() + "' not found.");
        }
        return named.orElse(Api.DEFAULT_USER);
    }

    /**
     * Engram's model spec for the request's {@code model} handle or {@code llm_config}; a 422 naming the field for
     * one it cannot map or {@code policy} does not allow (an API user never chooses where model requests go).
     */
    static Optional<String> model(Body body, ModelPolicy policy) {
        Optional<String> handle = body.string("model");
        if (handle.isPresent()) {
            String spec = LettaModels.spec(handle.get()).orElseThrow(() -> body.problem("value_error",
                    "Unknown model '" + handle.get() + "': name it as provider/model (openai/gpt-4o-mini, "
                            + "anthropic/claude-sonnet-4-5, google_ai/gemini-2.5-flash, ollama/llama3) or as an Engram "
                            + "model spec (openai:gpt-4o-mini)", "model"));
            return Optional.of(allowed(body, policy, spec, "model"));
        }
        Optional<ObjectNode> llm = body.object("llm_config");
        if (llm.isPresent()) {
            Body config = Body.of(llm.get(), body.location("llm_config"));
            String name = config.requiredString("model");
            String type = config.requiredString("model_endpoint_type");
            String spec = LettaModels.spec(type + "/" + name).orElseThrow(() -> config.problem("value_error",
                    "Unknown model endpoint type '" + type + "': use openai, anthropic, google_ai or ollama",
                    "model_endpoint_type"));
            return Optional.of(allowed(config, policy, spec, "model"));
        }
        return Optional.empty();
    }

    /** The request's {@code agent_type}; without one, Letta's default for a new agent, {@code letta_v1_agent}. */
    private static AgentType agentType(Body body) {
        Optional<String> type = body.string("agent_type");
        try {
            return type.map(AgentType::fromLetta).orElse(AgentType.LETTA_V1_AGENT);
        } catch (IllegalArgumentException e) {
            throw body.problem("enum", e.getMessage(), "agent_type");
        }
    }

    private static String allowed(Body body, ModelPolicy policy, String spec, String field) {
        policy.refusal(spec).ifPresent(problem -> {
            throw body.problem("value_error", "Model not allowed: " + problem, field);
        });
        return spec;
    }

    private static List<dev.engram.agents.ToolRule> toolRules(Body body, JsonNode rules) {
        try {
            return ToolRules.parse(rules);
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", Incidents.clientText(e, "tool_rules"), "tool_rules");
        }
    }

    /** A block of a {@code memory_blocks} entry ({@code CreateBlock}). */
    static NewBlock newBlock(Body block) {
        String label = block.requiredString("label");
        String value = block.requiredString("value");
        int limit = block.integer("limit").orElse(Math.max(LETTA_BLOCK_LIMIT, value.length()));
        if (limit < 1) {
            throw block.problem("greater_than", "Input should be greater than 0", "limit");
        }
        if (value.codePointCount(0, value.length()) > limit) {
            throw block.problem("value_error", "The value has " + value.codePointCount(0, value.length())
                    + " characters, more than the limit of " + limit, "value");
        }
        try {
            return NewBlock.builder(label).value(value).limit(limit).description(block.string("description").orElse(""))
                    .permission(block.bool("read_only").orElse(false) ? MemoryPermission.READ_ONLY : MemoryPermission.READ_WRITE)
                    .build();
        } catch (IllegalArgumentException e) {
            throw block.problem("value_error", Incidents.clientText(e, "a block"), "label");
        }
    }

    private static AgentDefinition build(AgentDefinition.Builder b) {
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("value_error", Incidents.clientText(e, "an agent"), "body");
        }
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, false);
        List<Agent> agents = matching(caller, req);
        Api.json(res, pages.page(agents, Agent::id, "agent").stream().map(api::agentState).toList());
    }

    private void count(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, Body.JSON.getNodeFactory().numberNode(matching(caller, req).size()));
    }

    /** The caller's agents (not sleep-time companions) that match the filters, oldest first. */
    private List<Agent> matching(Caller caller, ServerRequest req) {
        Optional<String> name = Query.string(req, "name");
        Set<String> tags = new LinkedHashSet<>();
        Query.all(req, "tags").forEach(t -> tags.addAll(List.of(t.split(","))));
        boolean allTags = Query.bool(req, "match_all_tags", false);
        List<String> users = Query.string(req, "identity_id").map(Identities::userOf)
                .filter(u -> api.users(caller).contains(u)).map(List::of)
                .orElse(Query.string(req, "identity_id").isPresent() ? List.of() : api.users(caller));
        List<AgentRecord> records = new ArrayList<>();
        for (String user : users) {
            records.addAll(api.store.agents().list(user));
        }
        records.sort(Comparator.comparing(AgentRecord::createdAt).thenComparing(r -> r.scope().agentId()));
        List<Agent> out = new ArrayList<>();
        for (AgentRecord record : records) {
            Agent agent = api.runtime.current(record.scope().userId(), record.scope().agentId());
            AgentDefinition d = agent.definition();
            if (d.actsFor().isPresent() || name.map(n -> !n.equals(d.name())).orElse(false)) {
                continue;
            }
            if (!tags.isEmpty() && !(allTags ? d.tags().containsAll(tags) : d.tags().stream().anyMatch(tags::contains))) {
                continue;
            }
            out.add(agent);
        }
        return out;
    }

    private void retrieve(Agent agent, ServerRequest req, ServerResponse res) {
        Api.json(res, api.agentState(agent));
    }

    private void modify(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        AgentFields.refuseUnsupported(body);
        AgentFolderRoutes.refuseInModify(body);
        AgentFields.modelSettings(body, agent.definition().modelSettings()); // checked before anything changes
        Optional<String> model = model(body, api.runtime.modelPolicy());
        Optional<List<String>> tools = requestedTools(body, agent.definition());
        Optional<JsonNode> rules = body.raw("tool_rules");
        Optional<List<String>> blockIds = body.strings("block_ids");
        List<Block> attach = new ArrayList<>();
        if (blockIds.isPresent()) {
            for (String blockId : blockIds.get()) {
                attach.add(api.block(agent.userId(), blockId));
            }
        }
        if (body.bool("enable_sleeptime").orElse(false) && agent.definition().sleeptime().isEmpty()) {
            api.quotas.companion(agent.userId()); // the sleep-time companion is one more agent of the user's
        }
        api.runtime.modify(agent.userId(), agent.id(), d -> {
            AgentDefinition.Builder b = d.toBuilder();
            body.string("name").ifPresent(b::name);
            body.string("system").ifPresent(b::systemPrompt);
            body.strings("tags").ifPresent(b::tags);
            model.ifPresent(b::model);
            body.integer("context_window_limit").ifPresent(b::contextWindowTokens);
            tools.ifPresent(b::tools);
            rules.ifPresent(r -> b.toolRules(toolRules(body, r)));
            AgentFields.apply(body, b, d.modelSettings());
            body.bool("enable_sleeptime").ifPresent(on -> {
                if (on && d.sleeptime().isEmpty()) {
                    b.sleeptime(SleeptimeSettings.of(model.orElse(d.model())));
                } else if (!on) {
                    b.noSleeptime();
                }
            });
            return build(b);
        });
        if (blockIds.isPresent()) {
            setSharedBlocks(agent, attach);
        }
        Api.json(res, api.agentState(agent));
    }

    /**
     * The tools a modify names in {@code tools} and {@code tool_ids} (together, in that order), as Engram's names; empty
     * when it names none. A 400 in Letta's wording, before anything changes, for a name neither the server nor the
     * agent itself (its own workspace, shell and web tools, its imported tools) offers.
     */
    private Optional<List<String>> requestedTools(Body body, AgentDefinition d) {
        Optional<List<String>> names = body.strings("tools");
        Optional<List<String>> ids = body.strings("tool_ids");
        if (names.isEmpty() && ids.isEmpty()) {
            return Optional.empty();
        }
        Set<String> offered = new LinkedHashSet<>(api.runtime.availableTools());
        offered.addAll(d.tools());
        offered.addAll(d.toolAccess().toolNames());
        d.declaredTools().forEach(t -> offered.add(t.name()));
        api.store.customTools().list(d.userId()).forEach(t -> offered.add(t.name()));
        Set<String> out = new LinkedHashSet<>();
        names.ifPresent(n -> out.addAll(RequestedTools.resolve(n, offered, "")));
        ids.ifPresent(i -> out.addAll(RequestedTools.resolve(toolNames(d.userId(), i), offered, "tool-")));
        return Optional.of(List.copyOf(out));
    }

    /** The tool names of tool ids: a custom tool's of {@code user} by its id, else Engram's {@code tool-<name>}. */
    private List<String> toolNames(String user, List<String> toolIds) {
        return toolIds.stream().map(id -> api.store.customTools().get(user, id).map(t -> t.name()).orElse(Ids.toolName(id)))
                .toList();
    }

    /** Makes {@code wanted} the blocks of other agents this agent sees: attaches the new ones, detaches the rest. */
    private void setSharedBlocks(Agent agent, List<Block> wanted) {
        List<Block> current = api.store.blocks().list(agent.scope()).stream()
                .filter(b -> !b.ownerAgentId().equals(agent.id())).toList();
        for (Block b : wanted) {
            if (!b.ownerAgentId().equals(agent.id()) && current.stream().noneMatch(c -> same(c, b))) {
                api.store.blocks().share(Scope.of(agent.userId(), b.ownerAgentId()), b.label(), agent.id(), b.permission());
            }
        }
        for (Block c : current) {
            if (wanted.stream().noneMatch(b -> same(c, b))) {
                api.store.blocks().unshare(Scope.of(agent.userId(), c.ownerAgentId()), c.label(), agent.id());
            }
        }
    }

    private static boolean same(Block a, Block b) {
        return a.ownerAgentId().equals(b.ownerAgentId()) && a.label().equals(b.label());
    }

    private void delete(Agent agent, ServerRequest req, ServerResponse res) {
        if (api.turns.running(agent.scope()).isPresent()) {
            throw ApiException.conflict("Agent '" + agent.id() + "' is working on a message; cancel it "
                    + "(POST /v1/agents/" + agent.id() + "/messages/cancel) or wait, then delete it.");
        }
        api.runtime.delete(agent.userId(), agent.id());
        Api.json(res, Body.JSON.createObjectNode().put("message", "Agent id=" + agent.id() + " successfully deleted"));
    }

    private void export(Agent agent, ServerRequest req, ServerResponse res) {
        String file = api.runtime.exportLettaAgentFile(agent.userId(), List.of(agent.id()));
        res.header(io.helidon.http.HeaderNames.CONTENT_TYPE, "application/json");
        res.send(file);
    }

    /** {@code POST /v1/agents/import}: a multipart form whose {@code file} is a Letta Agent File. */
    record ImportRoute(Api api) {
        void handle(Caller caller, ServerRequest req, ServerResponse res) {
            Upload upload = Upload.read(req);
            String user = caller.user().orElse(Api.DEFAULT_USER);
            AgentImport file = options(upload, AgentImport.json(upload.file(), upload.fileName()).user(user));
            AgentFileImport imported = api.runtime.importLettaAgentFile(file.newIds(Ids::newAgentId));
            ObjectNode out = Body.JSON.createObjectNode();
            imported.agents().forEach(a -> out.withArray("agent_ids").add(a.id()));
            out.withArray("agent_ids");
            imported.warnings().forEach(w -> out.withArray("warnings").add(w));
            out.withArray("dropped_grants");
            imported.dropped().forEach(d -> out.withArray("dropped_grants").addObject().put("agent", d.agent())
                    .put("field", d.field()).put("asked", d.asked()).put("reason", d.reason()));
            Api.json(res, out);
        }

        /**
         * Letta's import form fields: a model and a name instead of the file's, {@code _copy} after names, no messages.
         * Environment variables and secrets are refused (a request never sets them for the runtime's tools);
         * {@code override_existing_tools} changes nothing here, since an import never touches another agent's tools.
         */
        private AgentImport options(Upload upload, AgentImport file) {
            Map<String, String> f = upload.fields();
            for (String field : List.of("secrets", "env_vars_json")) {
                String value = f.getOrDefault(field, "").strip();
                if (!value.isEmpty() && !value.equals("{}") && !value.equals("null")) {
                    throw ApiException.invalid("value_error", "Engram does not take environment variables or secrets with an "
                            + "import: the runtime's tools get them from the server's configuration; leave '" + field
                            + "' out", "body", field);
                }
            }
            String handle = firstOf(f, "model", "override_model_handle");
            if (!handle.isEmpty()) {
                String spec = LettaModels.spec(handle).orElseThrow(() -> ApiException.invalid("value_error", "'" + handle
                        + "' is not a model handle (provider/model, e.g. openai/gpt-4o-mini)", "body", "model"));
                file = file.model(spec);
            }
            String name = firstOf(f, "name", "override_name");
            if (!name.isEmpty()) {
                file = file.name(name);
            }
            if (isTrue(f, "append_copy_suffix")) {
                file = file.appendCopySuffix();
            }
            if (isTrue(f, "strip_messages")) {
                file = file.stripMessages();
            }
            return file;
        }

        private static String firstOf(Map<String, String> f, String name, String legacy) {
            String v = f.getOrDefault(name, "").strip();
            return v.isEmpty() ? f.getOrDefault(legacy, "").strip() : v;
        }

        private static boolean isTrue(Map<String, String> f, String field) {
            String v = f.getOrDefault(field, "false").strip().toLowerCase(Locale.ROOT);
            if (!v.equals("true") && !v.equals("false")) {
                throw ApiException.invalid("bool_parsing", "'" + field + "' must be true or false, got '" + v + "'", "body", field);
            }
            return v.equals("true");
        }
    }
}
