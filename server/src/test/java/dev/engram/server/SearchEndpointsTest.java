package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@link AgentSearchRoutes}, {@link MessageSearchRoutes} and {@link PassageSearchRoutes}: searches and listings across
 * the caller's agents, never another user's.
 */
class SearchEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private static List<String> strings(JsonNode list, String field) {
        return list.valueStream().map(n -> n.path(field).asString()).toList();
    }

    private String agent(String key, String name, List<String> tags) {
        ServerFixture.Response r = fx.post(key, "/v1/agents/", obj("name", name, "tags", tags));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("id").asString();
    }

    @Test
    void agentsAreSearchedByNameTagsIdentityAndIdWithACursor() {
        String helper = agent(fx.ana, "helper", List.of("support", "eu"));
        String helper2 = agent(fx.ana, "helper-two", List.of("support"));
        String other = agent(fx.ana, "other", List.of("eu"));
        agent(fx.ben, "helper", List.of("support"));
        ServerFixture.Response all = fx.post(fx.ana, "/v1/agents/search", obj());
        assertThat(all.status()).as(all.text()).isEqualTo(200);
        assertThat(strings(all.json().path("agents"), "id")).containsExactly(other, helper2, helper);
        assertThat(all.json().path("nextCursor").isNull()).isTrue();
        JsonNode byName = fx.post(fx.ana, "/v1/agents/search", obj("search", List.of(obj("field", "name", "operator", "contains",
                "value", "helper")), "ascending", true)).json();
        assertThat(strings(byName.path("agents"), "id")).containsExactly(helper, helper2);
        JsonNode both = fx.post(fx.ana, "/v1/agents/search/", obj("search", List.of(obj("field", "tags", "operator", "contains",
                "value", List.of("support", "eu")), obj("field", "identity", "operator", "eq", "value", "identity-ana")),
                "combinator", "AND")).json();
        assertThat(strings(both.path("agents"), "id")).containsExactly(helper);
        assertThat(strings(fx.post(fx.ana, "/v1/agents/search", obj("search", List.of(obj("field", "agentId", "operator", "eq",
                "value", other)))).json().path("agents"), "id")).containsExactly(other);
        assertThat(fx.post(fx.ana, "/v1/agents/search", obj("search", List.of(obj("field", "templateName", "operator", "eq",
                "value", "t")))).json().path("agents")).isEmpty();
        JsonNode first = fx.post(fx.ana, "/v1/agents/search", obj("limit", 2, "ascending", true)).json();
        assertThat(strings(first.path("agents"), "id")).containsExactly(helper, helper2);
        assertThat(first.path("nextCursor").asString()).isEqualTo(helper2);
        assertThat(strings(fx.post(fx.ana, "/v1/agents/search", obj("limit", 2, "ascending", true, "after", helper2)).json()
                .path("agents"), "id")).containsExactly(other);

        String terms = URLEncoder.encode("[{\"field\": \"name\", \"operator\": \"eq\", \"value\": \"helper\"}]",
                StandardCharsets.UTF_8);
        ServerFixture.Response count = fx.get(fx.ana, "/v1/agents/search/count?search=" + terms);
        assertThat(count.status()).as(count.text()).isEqualTo(200);
        assertThat(count.json().path("count").asInt()).isEqualTo(1);
        assertThat(fx.get(fx.ana, "/v1/agents/search/count").json().path("count").asInt()).isEqualTo(3);
        assertThat(fx.get(fx.ben, "/v1/agents/search/count").json().path("count").asInt()).isEqualTo(1);
        assertThat(strings(fx.post(fx.ben, "/v1/agents/search", obj()).json().path("agents"), "id")).doesNotContain(helper);

        assertThat(fx.post(fx.ana, "/v1/agents/search", obj("search", List.of(obj("field", "color", "operator", "eq",
                "value", "red")))).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/search", obj("search", List.of(obj("field", "name", "operator", "like",
                "value", "h")))).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/search", obj("combinator", "OR")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/search", obj("sortBy", "name")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/search", obj("after", "agent-nope")).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/agents/search/count?search=%5Bnot-json").status()).isEqualTo(422);
    }

    @Test
    void messagesAreListedAcrossTheCallersAgents() {
        String a1 = fx.agent(fx.ana, "one");
        String a2 = fx.agent(fx.ana, "two");
        String b1 = fx.agent(fx.ben, "bens");
        fx.post(fx.ana, "/v1/agents/" + a1 + "/messages", fx.userMessage("first to one"));
        fx.post(fx.ana, "/v1/agents/" + a2 + "/messages", fx.userMessage("then to two"));
        fx.post(fx.ben, "/v1/agents/" + b1 + "/messages", fx.userMessage("ben-secret words"));
        ServerFixture.Response listed = fx.get(fx.ana, "/v1/messages/?include_return_message_types=user_message");
        assertThat(listed.status()).as(listed.text()).isEqualTo(200);
        assertThat(strings(listed.json(), "content")).containsExactly("then to two", "first to one");
        assertThat(strings(listed.json(), "agent_id")).containsExactly(a2, a1);
        assertThat(listed.text()).doesNotContain("ben-secret");
        JsonNode answers = fx.get(fx.ana, "/v1/messages/?include_return_message_types=assistant_message").json();
        assertThat(strings(answers, "content")).containsExactly("You said: then to two", "You said: first to one");
        JsonNode asc = fx.get(fx.ana, "/v1/messages?order=asc&include_return_message_types=user_message").json();
        assertThat(strings(asc, "content")).containsExactly("first to one", "then to two");
        String newest = listed.json().path(0).path("id").asString();
        JsonNode older = fx.get(fx.ana, "/v1/messages/?include_return_message_types=user_message&after=" + newest).json();
        assertThat(strings(older, "content")).containsExactly("first to one");
        assertThat(fx.get(fx.ana, "/v1/messages/?limit=1").json().path(0).path("agent_id").asString()).isEqualTo(a2);
        assertThat(fx.get(fx.ana, "/v1/messages/?order=up").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/messages/?include_return_message_types=letter").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/messages/?conversation_id=conv-nope").status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/messages/").text()).contains("ben-secret").doesNotContain("first to one");
    }

    @Test
    void recallMemoryIsSearchedAcrossTheCallersAgents() {
        String a1 = fx.agent(fx.ana, "one");
        String a2 = fx.agent(fx.ana, "two");
        String b1 = fx.agent(fx.ben, "bens");
        fx.post(fx.ana, "/v1/agents/" + a1 + "/messages", fx.userMessage("my favourite colour is turquoise"));
        fx.post(fx.ana, "/v1/agents/" + a2 + "/messages", fx.userMessage("the train leaves at noon"));
        fx.post(fx.ben, "/v1/agents/" + b1 + "/messages", fx.userMessage("turquoise is ben-secret too"));

        ServerFixture.Response found = fx.post(fx.ana, "/v1/agents/messages/search", obj("query", "turquoise",
                "search_mode", "fts", "roles", List.of("user")));
        assertThat(found.status()).as(found.text()).isEqualTo(200);
        assertThat(found.json()).hasSize(1);
        JsonNode hit = found.json().path(0);
        assertThat(hit.path("message").path("agent_id").asString()).isEqualTo(a1);
        assertThat(hit.path("message").path("role").asString()).isEqualTo("user");
        assertThat(hit.path("embedded_text").asString()).contains("turquoise");
        assertThat(hit.path("fts_rank").asInt()).isEqualTo(1);
        assertThat(hit.path("rrf_score").asDouble()).isPositive();
        assertThat(found.text()).doesNotContain("ben-secret");

        JsonNode hybrid = fx.post(fx.ana, "/v1/agents/messages/search", obj("query", "train", "agent_id", a2)).json();
        assertThat(hybrid.path(0).path("message").path("agent_id").asString()).isEqualTo(a2);
        assertThat(strings(hybrid, "embedded_text")).noneMatch(t -> t.contains("turquoise"));
        JsonNode recent = fx.post(fx.ana, "/v1/agents/messages/search", obj("roles", List.of("user"), "limit", 1)).json();
        assertThat(recent.path(0).path("embedded_text").asString()).isEqualTo("the train leaves at noon");
        assertThat(fx.post(fx.ana, "/v1/agents/messages/search", obj("query", "turquoise", "end_date",
                "2001-01-01T00:00:00Z")).json()).isEmpty();

        ServerFixture.Response all = fx.post(fx.ana, "/v1/messages/search", obj("query", "turquoise", "search_mode", "fts"));
        assertThat(all.status()).as(all.text()).isEqualTo(200);
        JsonNode user = all.json().valueStream().filter(m -> m.path("message_type").asString().equals("user_message"))
                .findFirst().orElseThrow();
        assertThat(user.path("content").asString()).isEqualTo("my favourite colour is turquoise");
        assertThat(user.path("agent_id").asString()).isEqualTo(a1);
        assertThat(user.path("message_id").asString()).startsWith("message-");
        assertThat(all.text()).doesNotContain("ben-secret");

        assertThat(fx.post(fx.ana, "/v1/messages/search", obj()).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/messages/search", obj("query", "x", "search_mode", "magic")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/messages/search", obj("query", "x", "limit", 101)).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/messages/search", obj("roles", List.of("robot"))).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/messages/search", obj("start_date", "yesterday")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ben, "/v1/agents/messages/search", obj("query", "turquoise", "agent_id", a1)).status())
                .isEqualTo(404);
    }

    @Test
    void passagesAreSearchedAcrossTheCallersAgentsAndArchives() {
        String a1 = fx.agent(fx.ana, "one");
        String b1 = fx.agent(fx.ben, "bens");
        fx.post(fx.ana, "/v1/agents/" + a1 + "/archival-memory", obj("text", "The invoice is due on Friday", "tags",
                List.of("billing")));
        fx.post(fx.ana, "/v1/agents/" + a1 + "/archival-memory", obj("text", "The garden needs water"));
        String archive = fx.post(fx.ana, "/v1/archives/", obj("name", "handbook")).json().path("id").asString();
        fx.post(fx.ana, "/v1/archives/" + archive + "/passages", obj("text", "Invoices are paid by bank transfer"));
        fx.post(fx.ben, "/v1/agents/" + b1 + "/archival-memory", obj("text", "ben-secret invoice"));

        ServerFixture.Response found = fx.post(fx.ana, "/v1/passages/search", obj("query", "invoice"));
        assertThat(found.status()).as(found.text()).isEqualTo(200);
        List<String> texts = found.json().valueStream().map(r -> r.path("passage").path("text").asString()).toList();
        assertThat(texts).contains("The invoice is due on Friday", "Invoices are paid by bank transfer");
        assertThat(found.text()).doesNotContain("ben-secret");
        assertThat(found.json().path(0).path("score").asDouble()).isPositive();

        JsonNode inArchive = fx.post(fx.ana, "/v1/passages/search", obj("query", "invoice", "archive_id", archive)).json();
        assertThat(inArchive.valueStream().map(r -> r.path("passage").path("text").asString()).toList())
                .containsExactly("Invoices are paid by bank transfer");
        assertThat(inArchive.path(0).path("metadata").path("archive_id").asString()).isEqualTo(archive);
        JsonNode tagged = fx.post(fx.ana, "/v1/passages/search", obj("query", "invoice", "tags", List.of("billing"),
                "tag_match_mode", "all")).json();
        assertThat(tagged.valueStream().map(r -> r.path("passage").path("text").asString()).toList())
                .containsExactly("The invoice is due on Friday");
        assertThat(tagged.path(0).path("metadata").path("agent_id").asString()).isEqualTo(a1);
        JsonNode newest = fx.post(fx.ana, "/v1/passages/search", obj("agent_id", a1, "limit", 1)).json();
        assertThat(newest.path(0).path("passage").path("text").asString()).isEqualTo("The garden needs water");

        assertThat(fx.post(fx.ana, "/v1/passages/search", obj("query", "x", "tag_match_mode", "most")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/passages/search", obj("query", "x", "limit", 0)).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/passages/search", obj("query", "x", "start_date", "soon")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ben, "/v1/passages/search", obj("query", "invoice", "archive_id", archive)).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/passages/search", obj("query", "invoice", "agent_id", a1)).status()).isEqualTo(404);
    }
}
