package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Goal;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.memory.TodoStatus;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code GET /v1/agents/{agent_id}/work-state}: an agent's todos and goals over HTTP, only to its own user. */
class WorkStateEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;
    Scope scope;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        agent = fx.agent(fx.ana, "helper");
        scope = Scope.of("ana", agent);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void theWorkStateShowsTodosTheCurrentGoalItsCheckpointsAndDecisionsAndTheOpenGoals() {
        JsonNode empty = fx.get(fx.ana, "/v1/agents/" + agent + "/work-state").json();
        assertThat(empty.path("todos")).isEmpty();
        assertThat(empty.path("current_goal").isNull()).isTrue();

        fx.store.work().writeTodos(scope, List.of(new TodoItem("Draft", TodoStatus.IN_PROGRESS), TodoItem.pending("Send")));
        Goal older = fx.store.work().createGoal(scope, "Older goal", "");
        Goal current = fx.store.work().createGoal(scope, "Quarterly report", "for the board");
        fx.store.work().checkpoint(scope, "outline done");
        fx.store.work().decide(scope, "March figures", "April is late");

        ServerFixture.Response r = fx.get(fx.ana, "/v1/agents/" + agent + "/work-state");

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        JsonNode json = r.json();
        assertThat(json.path("todos").path(0).path("content").asString()).isEqualTo("Draft");
        assertThat(json.path("todos").path(0).path("status").asString()).isEqualTo("in_progress");
        assertThat(json.path("current_goal").path("id").asString()).isEqualTo(current.id());
        assertThat(json.path("current_goal").path("description").asString()).isEqualTo("for the board");
        assertThat(json.path("checkpoints").path(0).path("text").asString()).isEqualTo("outline done");
        assertThat(json.path("decisions").path(0).path("rationale").asString()).isEqualTo("April is late");
        assertThat(json.path("open_goals")).hasSize(2);
        assertThat(json.path("open_goals").path(0).path("id").asString()).isEqualTo(older.id());
        assertThat(json.path("open_goals").path(0).path("current").asBoolean()).isFalse();

        ServerFixture.Response ben = fx.get(fx.ben, "/v1/agents/" + agent + "/work-state");
        assertThat(ben.status()).isEqualTo(404);
        assertThat(ben.text()).doesNotContain("Quarterly report", "Draft");
    }
}
