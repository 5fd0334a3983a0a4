package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.agents.AgentDefinition;
import dev.engram.agents.ToolRule;
import dev.engram.memory.NewBlock;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import tools.jackson.databind.JsonNode;

/**
 * Turns that wait for an approval hold no platform thread, and are capped per user and per server: a call beyond a
 * cap is denied at once with the reason, and everything else goes on (issue #27, item 8).
 */
@Isolated // no class runs beside it: it counts the JVM's platform threads
class WaitingApprovalsTest {
    /** Parked approvals: each pinned a platform thread before (300 took a server from 42 to 348 threads). */
    private static final int PARKED = 100;
    private static final String CALL = "call {\"name\": \"block\", \"arguments\": {\"operation\": \"append\", "
            + "\"label\": \"human\", \"text\": \"Ana\"}}";

    @TempDir
    Path dir;

    private ServerFixture fx;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir, b -> b.maxWaitingApprovals(PARKED, PARKED + 1));
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    /** An agent of the user whose {@code block} tool needs approval; returns its id. */
    private String askingAgent(String user) {
        String id = "agent-" + UUID.randomUUID();
        fx.server.runtime().create(AgentDefinition.builder(user).id(id).name(id).model("test:echo")
                .tools("block", "send_message").block(NewBlock.builder("human").value("Name: ").build())
                .toolRules(new ToolRule.RequiresApproval("block")).build());
        return id;
    }

    private ServerFixture.Response call(String key, String agent) {
        return fx.post(key, "/v1/agents/" + agent + "/messages", obj("input", CALL));
    }

    private static String stopReason(ServerFixture.Response r) {
        return r.json().path("stop_reason").path("stop_reason").asString();
    }

    private static String toolReturn(ServerFixture.Response r) {
        for (JsonNode m : r.json().path("messages")) {
            if (m.path("message_type").asString().equals("tool_return_message")) {
                return m.path("tool_return").asString();
            }
        }
        throw new AssertionError("no tool return in " + r.text());
    }

    @Test
    void parkedApprovalsHoldNoPlatformThreadsAndTheCapsDenyTheNextWithAReason() throws Exception {
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < PARKED + 1; i++) {
            agents.add(askingAgent("ana"));
        }
        // warm up the server's and the client's threads with one turn that waits and is answered
        ServerFixture.Response warm = call(fx.ana, agents.getLast());
        assertThat(stopReason(warm)).as(warm.text()).isEqualTo("requires_approval");
        fx.post(fx.ana, "/v1/agents/" + agents.getLast() + "/messages", obj("messages", List.of(
                obj("type", "approval", "approve", false, "approval_request_id", "approval-"
                        + warm.json().path("messages").get(warm.json().path("messages").size() - 1)
                                .path("tool_call").path("tool_call_id").asString()))));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int before = threads.getThreadCount();

        List<Future<ServerFixture.Response>> parked = new ArrayList<>();
        try (ExecutorService clients = Executors.newFixedThreadPool(4)) {
            for (String agent : agents.subList(0, PARKED)) {
                parked.add(clients.submit(() -> call(fx.ana, agent)));
            }
        }
        for (Future<ServerFixture.Response> f : parked) {
            assertThat(stopReason(f.get())).as(f.get().text()).isEqualTo("requires_approval");
        }
        int grown = threads.getThreadCount() - before;
        assertThat(grown).as("platform threads added by %d parked approvals", PARKED).isLessThan(PARKED / 10);

        // the user's cap: the next call is denied at once, and the turn ends normally
        ServerFixture.Response overUser = call(fx.ana, agents.getLast());
        assertThat(overUser.status()).as(overUser.text()).isEqualTo(200);
        assertThat(stopReason(overUser)).isEqualTo("end_turn");
        assertThat(toolReturn(overUser)).contains("not approved").contains("user 'ana' already has " + PARKED + " turns waiting for an "
                + "approval, the most allowed per user; answer or cancel one of them, then try again");
        // the server's cap: another user's first waiting turn fits, their second does not
        String bens = askingAgent("ben");
        String bens2 = askingAgent("ben");
        assertThat(stopReason(call(fx.ben, bens))).isEqualTo("requires_approval");
        ServerFixture.Response overServer = call(fx.ben, bens2);
        assertThat(toolReturn(overServer)).contains("the server already has " + (PARKED + 1) + " turns waiting for an approval, the most it "
                + "allows");
        assertThat(fx.server.runtime().store().blocks().get(dev.engram.memory.Scope.of("ben", bens2), "human").orElseThrow()
                .value()).isEqualTo("Name: ");

        // nothing else breaks: an agent that never asks answers, and a waiting approval still completes
        String plain = fx.agent(fx.ben, "plain");
        assertThat(fx.post(fx.ben, "/v1/agents/" + plain + "/messages", fx.userMessage("hello")).status()).isEqualTo(200);
        String first = agents.getFirst();
        JsonNode request = parked.getFirst().get().json().path("messages");
        String callId = request.get(request.size() - 1).path("tool_call").path("tool_call_id").asString();
        ServerFixture.Response approved = fx.post(fx.ana, "/v1/agents/" + first + "/messages", obj("messages", List.of(
                obj("type", "approval", "approvals", List.of(obj("type", "approval", "tool_call_id", callId, "approve", true))))));
        assertThat(approved.status()).as(approved.text()).isEqualTo(200);
        assertThat(stopReason(approved)).isEqualTo("end_turn");
        assertThat(fx.get(fx.ana, "/v1/agents/" + first + "/core-memory/blocks/human").json().path("value").asString())
                .isEqualTo("Name: \nAna");
        // the answered turn freed its place: the user may park one again
        assertThat(stopReason(call(fx.ana, agents.getLast()))).isEqualTo("requires_approval");
    }
}
