package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.CustomToolSpec;
import dev.engram.memory.Scope;
import io.helidon.http.Method;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route of the server's route table ({@link EngramServer#routes()}, the table the routing is built from), called
 * without a key, with a wrong key, and with another user's key: 401, 401, and never that user's things.
 */
class RouteAuthenticationTest {
    /** Path parameters that name something of ana's: with ben's key, such a route must answer 404 (or 403). */
    private static final List<String> OWNED = List.of("agent_id", "block_id", "identity_id", "memory_id", "block_label",
            "conversation_id", "message_id", "run_id", "canvas_name", "mcp_server_id", "mcp_server_name",
            "folder_id", "folder_name", "file_id", "archive_id", "passage_id", "tool_id", "group_id", "batch_id", "step_id");
    private static final Pattern PARAM = Pattern.compile("\\{(\\w+)}");

    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;
    Map<String, String> values;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        agent = fx.agent(fx.ana, "ana-secret-agent");
        String block = fx.post(fx.ana, "/v1/blocks/", obj("label", "ana-secret-label", "value", "ana-secret-block"))
                .json().path("id").asString();
        String passage = fx.post(fx.ana, "/v1/agents/" + agent + "/archival-memory", obj("text", "ana-secret-passage"))
                .json().path(0).path("id").asString();
        assertThat(fx.post(fx.ana, "/v1/identities/", obj("identifier_key", "ana", "name", "ana-secret-name",
                "identity_type", "user")).status()).isEqualTo(200);
        String conversation = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj("summary", "ana-secret-summary"))
                .json().path("id").asString();
        ServerFixture.Response sent = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("ana-secret-message"));
        String message = sent.json().path("messages").path(0).path("id").asString();
        values = new LinkedHashMap<>();
        values.put("message_id", message);
        values.put("agent_id", agent);
        values.put("block_id", block);
        values.put("identity_id", "identity-ana");
        values.put("memory_id", passage);
        values.put("block_label", "human");
        // A custom tool of ana's: its id is in the paths; its description must never show.
        values.put("tool_id", fx.store.customTools().create("ana", new CustomToolSpec("anas_tool", "ana-secret-tool", "python",
                "def anas_tool():\n    return 1\n", "{\"name\":\"anas_tool\",\"parameters\":{\"type\":\"object\"}}", "",
                List.of(), 100, "[]", "[]", false, "{}")).id());
        values.put("tool_name", "send_message");
        values.put("conversation_id", conversation);
        values.put("run_id", sent.json().path("usage").path("run_ids").path(0).asString());
        values.put("step_id", fx.store.runs().steps("ana", values.get("run_id")).getFirst().id());
        values.put("provider_id", "provider-none");
        // An MCP server of ana's (never reached: ben's key and no key cannot see it). Its name is in the paths, which
        // a 404 may echo; its URL is what must never show.
        values.put("mcp_server_id", fx.store.mcpServers().create("ana", "anas-mcp", "streamable_http",
                "{\"server_url\": \"http://127.0.0.1:9/ana-secret-mcp\", \"auth_header\": \"\", \"operator\": false}",
                "").id());
        values.put("mcp_server_name", "anas-mcp");
        values.put("mcp_tool_name", "echo");
        fx.store.canvases().write(Scope.of("ana", agent), "ana-chart", "", "<p>ana-secret-canvas</p>");
        values.put("canvas_name", "ana-chart");
        values.put("note_id", fx.store.notes().save("ana", "ana-secret-note").id());
        values.put("job_id", fx.post(fx.ana, "/v1/agents/" + agent + "/memory/add", obj("messages",
                List.of(obj("role", "user", "content", "ana-secret-job")), "infer", false)).json().path("id").asString());
        String archive = fx.post(fx.ana, "/v1/archives/", obj("name", "ana-secret-archive")).json().path("id").asString();
        values.put("archive_id", archive);
        values.put("group_id", fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(agent), "description",
                "ana-secret-group")).json().path("id").asString());
        values.put("passage_id", fx.post(fx.ana, "/v1/archives/" + archive + "/passages", obj("text",
                "ana-secret-archive-passage")).json().path("id").asString());
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/archives/attach/" + archive, obj()).status()).isEqualTo(200);
        values.put("scheduled_message_id", fx.post(fx.ana, "/v1/agents/" + agent + "/schedule", obj("messages",
                List.of(obj("role", "user", "content", "ana-secret-reminder")), "schedule", Map.of("type", "recurring",
                "cron_expression", "0 9 * * *"))).json().path("id").asString());
        String folder = fx.post(fx.ana, "/v1/folders/", obj("name", "ana-secret-folder")).json().path("id").asString();
        values.put("folder_id", folder);
        values.put("folder_name", "ana-secret-folder");
        values.put("file_id", fx.multipart(fx.ana, "/v1/folders/" + folder + "/upload", "ana-secret-file.md",
                "ana-secret-document".getBytes(StandardCharsets.UTF_8)).json().path("id").asString());
        values.put("batch_id", fx.post(fx.ana, "/v1/messages/batches", obj("requests", List.of(obj("agent_id", agent,
                "messages", List.of(obj("role", "user", "content", "ana-secret-batch")))))).json().path("id").asString());
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private String path(Route route) {
        Matcher m = PARAM.matcher(route.path());
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = values.get(m.group(1));
            assertThat(value).as("a value for {%s} of route %s %s: give this test one", m.group(1), route.method(),
                    route.path()).isNotNull();
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static boolean bodyless(Method method) {
        return method == Method.GET || method == Method.DELETE;
    }

    @Test
    void everyRouteButHealthNeedsAKey() {
        List<Route> routes = fx.server.routes();
        assertThat(routes).hasSizeGreaterThanOrEqualTo(39);
        for (Route route : routes) {
            String path = path(route);
            Object body = bodyless(route.method()) ? null : obj();
            ServerFixture.Response none = fx.call(route.method().text(), null, path, body);
            ServerFixture.Response wrong = fx.call(route.method().text(), "sk-engram-not-a-key", path, body);
            if (route.access() == Route.Access.OPEN) {
                assertThat(none.status()).as("%s %s", route.method(), path).isEqualTo(200);
                continue;
            }
            assertThat(none.status()).as("%s %s without a key: %s", route.method(), path, none.text()).isEqualTo(401);
            assertThat(none.detail()).contains("Authorization: Bearer KEY");
            assertThat(wrong.status()).as("%s %s with a wrong key: %s", route.method(), path, wrong.text()).isEqualTo(401);
        }
        assertThat(fx.get(null, "/v1/templates/").status()).as("an endpoint Engram does not implement").isEqualTo(401);
        assertThat(fx.get(null, "/v1").status()).isEqualTo(401);
    }

    @Test
    void everyRouteWithAnotherUsersKeySeesNothingOfTheirsAndChangesNothing() {
        for (Route route : fx.server.routes()) {
            String path = path(route);
            ServerFixture.Response r = fx.call(route.method().text(), fx.ben, path, bodyless(route.method()) ? null : obj());
            String what = route.method() + " " + path + " with ben's key: " + r.status() + " " + r.text();
            if (OWNED.stream().anyMatch(p -> route.path().contains("{" + p + "}"))) {
                assertThat(r.status()).as(what).isIn(403, 404);
            } else {
                assertThat(r.status()).as(what).isLessThan(500);
            }
            assertThat(r.text()).as(what).doesNotContain("ana-secret");
            for (String id : List.of(agent, values.get("block_id"), values.get("memory_id"), values.get("archive_id"),
                    values.get("passage_id"))) {
                if (!path.contains(id)) {
                    assertThat(r.text()).as(what).doesNotContain(id);
                }
            }
        }
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json().path("name").asString()).isEqualTo("ana-secret-agent");
        assertThat(fx.store.blocks().get(Scope.of("ana", agent), "human").orElseThrow().value())
                .isEqualTo("The user's name is unknown.");
        assertThat(fx.get(fx.ana, "/v1/blocks/" + values.get("block_id")).json().path("value").asString())
                .isEqualTo("ana-secret-block");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/archival-memory").json().path(0).path("text").asString())
                .isEqualTo("ana-secret-passage");
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ana").json().path("name").asString()).isEqualTo("ana-secret-name");
        assertThat(fx.get(fx.ana, "/v1/conversations/" + values.get("conversation_id")).json().path("summary").asString())
                .isEqualTo("ana-secret-summary");
        assertThat(fx.store.schedules().get("ana", values.get("scheduled_message_id")).orElseThrow().active()).isTrue();
        assertThat(fx.store.mcpServers().get("ana", values.get("mcp_server_id"))).isPresent();
        assertThat(fx.store.customTools().get("ana", values.get("tool_id")).orElseThrow().spec().description())
                .isEqualTo("ana-secret-tool");
        assertThat(fx.get(fx.ana, "/v1/folders/" + values.get("folder_id")).json().path("name").asString())
                .isEqualTo("ana-secret-folder");
        assertThat(fx.get(fx.ana, "/v1/folders/" + values.get("folder_id") + "/files/" + values.get("file_id")).status())
                .isEqualTo(200);
        String archive = values.get("archive_id");
        assertThat(fx.get(fx.ana, "/v1/archives/" + archive).json().path("name").asString()).isEqualTo("ana-secret-archive");
        assertThat(fx.get(fx.ana, "/v1/archives/" + archive + "/passages").json().path(0).path("id").asString())
                .isEqualTo(values.get("passage_id"));
        assertThat(fx.store.archives().agents("ana", archive)).containsExactly(agent);
    }

    /** A route added later that forgets to ask for the caller, even one registered outside the table, is not open. */
    @Test
    void aRouteThatNeverAsksForTheCallerIsStillBehindTheFilter() {
        List<Route> table = List.of(Route.open(Method.GET, "/v1/health", (req, res) -> res.send("ok")),
                Route.caller(Method.GET, "/v1/whoami", (caller, req, res) -> res.send(caller.user().orElse("admin"))));
        HttpRouting.Builder routing = HttpRouting.builder()
                .addFilter(new Authentication(new VerifiedKeys(fx.store.keys(), Duration.ZERO), table));
        Route.register(routing, table);
        routing.get("/v1/forgot", (req, res) -> res.send("anyone's"));
        routing.get("/outside", (req, res) -> res.send("outside /v1"));
        routing.error(ApiException.class, (req, res, e) -> Api.json(res, e.status(), e.body()));
        WebServer web = WebServer.builder().host("127.0.0.1").port(0).routing(routing).build().start();
        try {
            String base = "http://127.0.0.1:" + web.port();
            assertThat(call(base + "/v1/forgot", null).status()).isEqualTo(401);
            assertThat(call(base + "/v1/whoami", null).status()).isEqualTo(401);
            assertThat(call(base + "/v1/whoami", fx.ben).text()).isEqualTo("ben");
            assertThat(call(base + "/v1/health", null).text()).isEqualTo("ok");
            assertThat(call(base + "/outside", null).text()).isEqualTo("outside /v1");
        } finally {
            web.stop();
        }
    }

    private ServerFixture.Response call(String url, String key) {
        java.net.http.HttpRequest.Builder req = java.net.http.HttpRequest.newBuilder(java.net.URI.create(url));
        if (key != null) {
            req.header("Authorization", "Bearer " + key);
        }
        return fx.send(req.build());
    }

    @Test
    void aCallerRouteOutsideTheFilterFailsClosed() {
        List<Route> table = List.of(Route.caller(Method.GET, "/elsewhere", (caller, req, res) -> res.send("in")));
        HttpRouting.Builder routing = HttpRouting.builder()
                .addFilter(new Authentication(new VerifiedKeys(fx.store.keys(), Duration.ZERO), table));
        Route.register(routing, table);
        routing.error(ApiException.class, (req, res, e) -> Api.json(res, e.status(), e.body()));
        WebServer web = WebServer.builder().host("127.0.0.1").port(0).routing(routing).build().start();
        try {
            assertThat(call("http://127.0.0.1:" + web.port() + "/elsewhere", fx.ben).status()).isEqualTo(401);
        } finally {
            web.stop();
        }
    }
}
