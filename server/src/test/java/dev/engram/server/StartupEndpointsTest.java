package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** The routes Letta Code calls at start ({@link StartupRoutes}): what they answer, to whom, and that they change nothing. */
class StartupEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        agent = fx.agent(fx.ana, "helper");
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void aStoredMessageIsRetrievedByIdByItsOwnerOnly() {
        JsonNode sent = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hello")).json().path("messages");
        String userId = sent.get(0).path("id").asString();
        String assistantId = sent.get(1).path("id").asString();

        ServerFixture.Response user = fx.get(fx.ana, "/v1/messages/" + userId);
        assertThat(user.status()).as(user.text()).isEqualTo(200);
        assertThat(user.json()).hasSize(1);
        assertThat(user.json().get(0).path("message_type").asString()).isEqualTo("user_message");
        assertThat(user.json().get(0).path("content").asString()).isEqualTo("hello");
        assertThat(user.json().get(0).path("id").asString()).isEqualTo(userId);
        JsonNode assistant = fx.get(fx.ana, "/v1/messages/" + assistantId).json();
        assertThat(assistant.get(0).path("message_type").asString()).isEqualTo("assistant_message");
        assertThat(assistant.get(0).path("content").asString()).isEqualTo("You said: hello");
        assertThat(fx.get(fx.admin, "/v1/messages/" + userId).json().get(0).path("content").asString()).isEqualTo("hello");

        ServerFixture.Response other = fx.get(fx.ben, "/v1/messages/" + userId);
        assertThat(other.status()).isEqualTo(404);
        assertThat(other.text()).doesNotContain("hello");
        assertThat(fx.get(null, "/v1/messages/" + userId).status()).isEqualTo(401);
    }

    @Test
    void anIdThatNamesNoMessageIs404() {
        ServerFixture.Response notAnId = fx.get(fx.ana, "/v1/messages/message-x1");
        assertThat(notAnId.status()).isEqualTo(404);
        assertThat(notAnId.detail()).contains("message-x1").contains("is not a message id of this server");
        ServerFixture.Response missing = fx.get(fx.ana, "/v1/messages/message-987654");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.detail()).isEqualTo("Message 'message-987654' not found.");
        assertThat(fx.get(fx.ana, "/v1/messages/agent-" + agent).status()).isEqualTo(404);
    }

    @Test
    void addBaseToolsListsTheRuntimesToolsAndChangesNothing() {
        JsonNode before = fx.get(fx.ana, "/v1/tools/?limit=1000").json();
        ServerFixture.Response added = fx.post(fx.ana, "/v1/tools/add-base-tools", null);
        assertThat(added.status()).as(added.text()).isEqualTo(200);
        assertThat(added.json()).extracting(t -> t.path("name").asString())
                .contains("send_message", "conversation_search", "archival_memory_insert", "archival_memory_search");
        assertThat(added.json()).hasSameSizeAs(before);
        assertThat(fx.get(fx.ana, "/v1/tools/?limit=1000").json()).isEqualTo(before);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/tools?limit=100").json()).extracting(t -> t.path("name").asString())
                .doesNotContain("archival_memory_insert");
        assertThat(fx.post(null, "/v1/tools/add-base-tools", null).status()).isEqualTo(401);
    }

    @Test
    void metadataSaysSelfHostedWithNoCreditsAndNamesTheCallersUser() {
        JsonNode balance = fx.get(fx.ana, "/v1/metadata/balance").json();
        assertThat(balance.path("billing_tier").asString()).isEqualTo("self-hosted");
        assertThat(balance.path("total_balance").asDouble()).isZero();
        assertThat(balance.has("monthly_credit_balance")).isTrue();
        assertThat(balance.has("purchased_credit_balance")).isTrue();

        JsonNode ana = fx.get(fx.ana, "/v1/metadata/user").json();
        assertThat(ana.path("id").asString()).isEqualTo("ana");
        assertThat(ana.path("name").asString()).isEqualTo("ana");
        assertThat(ana.path("billing_tier").asString()).isEqualTo("self-hosted");
        assertThat(ana.path("current_project_id").isNull()).isTrue();
        assertThat(fx.get(fx.ben, "/v1/metadata/user").json().path("id").asString()).isEqualTo("ben");
        assertThat(fx.get(fx.admin, "/v1/metadata/user").json().path("id").asString()).isEqualTo("admin");
        assertThat(fx.get(null, "/v1/metadata/user").status()).isEqualTo(401);
        assertThat(fx.get(null, "/v1/metadata/balance").status()).isEqualTo(401);
    }

    @Test
    void anAgentsSecretsMcpServersAndRepositoriesAreEmptyForItsOwnerAndHiddenFromOthers() {
        String base = "/v1/agents/" + agent;
        ServerFixture.Response secrets = fx.get(fx.ana, base + "/secrets");
        assertThat(secrets.status()).as(secrets.text()).isEqualTo(200);
        assertThat(secrets.json().isArray()).isTrue();
        assertThat(secrets.json()).isEmpty();
        JsonNode mcp = fx.get(fx.ana, base + "/mcp-servers").json();
        assertThat(mcp.isArray()).isTrue();
        assertThat(mcp).isEmpty();
        JsonNode repositories = fx.get(fx.ana, base + "/repositories").json();
        assertThat(repositories.path("repositories").isArray()).isTrue();
        assertThat(repositories.path("repositories")).isEmpty();

        for (String route : new String[] {"/secrets", "/mcp-servers", "/repositories"}) {
            assertThat(fx.get(fx.ben, base + route).status()).as(route).isEqualTo(404);
            assertThat(fx.get(fx.ana, "/v1/agents/agent-missing" + route).status()).as(route).isEqualTo(404);
            assertThat(fx.get(null, base + route).status()).as(route).isEqualTo(401);
        }
        assertThat(fx.get(fx.ana, base).json().path("name").asString()).isEqualTo("helper");
    }
}
