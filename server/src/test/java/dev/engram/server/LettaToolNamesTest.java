package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.tools.WebFetcher;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Letta's built-in tool names at agent create and modify: Engram's equivalent when the operator enabled it, else a
 * 400 in Letta's own wording ("Tools not found by name: {...}") saying how to enable it, with nothing created or
 * changed.
 */
class LettaToolNamesTest {
    @TempDir
    Path dir;

    /** A server whose operator enabled the web tools (web_fetch; no search provider, so no web_search). */
    private ServerFixture withWeb() {
        return new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel())
                .web(WebFetcher.http(), List.of())));
    }

    private static List<String> toolNames(JsonNode agent) {
        return agent.path("tools").valueStream().map(t -> t.path("name").asString()).toList();
    }

    @Test
    void anEnabledLettaBuiltInResolvesToEngramsTool() {
        try (ServerFixture fx = withWeb()) {
            ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "web", "include_base_tools", false,
                    "tools", List.of("fetch_webpage", "send_message_to_agent_and_wait_for_reply")));
            assertThat(r.status()).as(r.text()).isEqualTo(200);
            assertThat(toolNames(r.json())).containsExactly("web_fetch", "send_message_to_agent_and_wait_for_reply");
            String id = r.json().path("id").asString();
            assertThat(toolNames(fx.get(fx.ana, "/v1/agents/" + id).json())).containsExactly("web_fetch",
                    "send_message_to_agent_and_wait_for_reply");
            ServerFixture.Response modified = fx.patch(fx.ana, "/v1/agents/" + id,
                    obj("tool_ids", List.of("tool-fetch_webpage", "tool-block")));
            assertThat(modified.status()).as(modified.text()).isEqualTo(200);
            assertThat(toolNames(modified.json())).containsExactly("web_fetch", "block");
        }
    }

    @Test
    void aBuiltInTheOperatorDidNotEnableIsRefusedInLettasWordingAndNothingIsCreated() {
        try (ServerFixture fx = new ServerFixture(dir)) {
            ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "web",
                    "tools", List.of("web_search", "fetch_webpage")));
            assertThat(r.status()).as(r.text()).isEqualTo(400);
            assertThat(r.detail()).startsWith("Tools not found by name: {'web_search', 'fetch_webpage'}")
                    .contains("engram serve with --web", "BRAVE_API_KEY");
            assertThat(fx.get(fx.ana, "/v1/agents/count").json().asInt()).isZero();
            assertThat(fx.store.agents().list("ana")).isEmpty();
        }
    }

    @Test
    void aMixedListNamesOnlyWhatIsMissingAndCreatesNothing() {
        try (ServerFixture fx = withWeb()) {
            ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "mixed",
                    "tools", List.of("fetch_webpage", "archival_memory_insert", "web_search", "run_code", "teleport")));
            assertThat(r.status()).as(r.text()).isEqualTo(400);
            assertThat(r.detail()).startsWith("Tools not found by name: {'web_search', 'run_code', 'teleport'}.")
                    .contains("search provider", "engram serve with --code", "GET /v1/tools")
                    .doesNotContain("'fetch_webpage'", "'archival_memory_insert'");
            assertThat(fx.store.agents().list("ana")).isEmpty();
        }
    }

    @Test
    void anUnknownNameGetsLettasWordingSoClientsRecover() {
        try (ServerFixture fx = new ServerFixture(dir)) {
            ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "t", "tools", List.of("teleport")));
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.detail()).isEqualTo("Tools not found by name: {'teleport'}. GET /v1/tools lists the tools this "
                    + "server offers.");
            ServerFixture.Response byId = fx.post(fx.ana, "/v1/agents/", obj("name", "t", "tool_ids", List.of("tool-teleport")));
            assertThat(byId.status()).isEqualTo(400);
            assertThat(byId.detail()).startsWith("Tools not found by id:   {'tool-teleport'}.");
            assertThat(fx.store.agents().list("ana")).isEmpty();
        }
    }

    @Test
    void aModifyNamingAToolNotEnabledIsRefusedAndChangesNothing() {
        try (ServerFixture fx = new ServerFixture(dir)) {
            String id = fx.agent(fx.ana, "helper");
            List<String> before = toolNames(fx.get(fx.ana, "/v1/agents/" + id).json());
            ServerFixture.Response r = fx.patch(fx.ana, "/v1/agents/" + id,
                    obj("name", "renamed", "tools", List.of("web_search")));
            assertThat(r.status()).as(r.text()).isEqualTo(400);
            assertThat(r.detail()).startsWith("Tools not found by name: {'web_search'}.").contains("--web");
            ServerFixture.Response byId = fx.patch(fx.ana, "/v1/agents/" + id, obj("tool_ids", List.of("tool-fetch_webpage")));
            assertThat(byId.status()).isEqualTo(400);
            assertThat(byId.detail()).startsWith("Tools not found by id:   {'tool-fetch_webpage'}.").contains("--web");
            JsonNode after = fx.get(fx.ana, "/v1/agents/" + id).json();
            assertThat(after.path("name").asString()).isEqualTo("helper");
            assertThat(toolNames(after)).isEqualTo(before);
        }
    }
}
