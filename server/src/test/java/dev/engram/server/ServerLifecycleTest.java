package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Closing the server with a turn in progress: the turn is cancelled, what it stored stays consistent, and a new server carries on. */
class ServerLifecycleTest {
    @TempDir
    Path dir;

    @Test
    void closingTheServerCancelsARunningTurnAndTheAgentCarriesOnAfterwards() throws Exception {
        ServerFixture fx = new ServerFixture(dir);
        String agent = fx.agent(fx.ana, "helper");
        CompletableFuture<ServerFixture.Response> slow = CompletableFuture.supplyAsync(() -> {
            try {
                return fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("sleep 20000 slow"));
            } catch (RuntimeException e) {
                return null; // the connection closed under it
            }
        });
        Scope scope = Scope.of("ana", agent);
        for (int i = 0; i < 200 && fx.store.messages().count(scope) == 0; i++) {
            Thread.sleep(25);
        }
        long start = System.nanoTime();
        fx.server.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close waits for the cancelled turn, not the model")
                .isLessThan(Duration.ofSeconds(15));
        ServerFixture.Response answer = slow.get(20, TimeUnit.SECONDS);
        if (answer != null) {
            assertThat(answer.status()).isIn(200, 503);
        }
        EngramServer again = EngramServer.builder(fx.store, fx.search).runtime(rt -> rt.model("test:echo", new EchoModel()))
                .defaultModel("test:echo").port(0).start();
        try {
            ServerFixture.Response r = fx.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                            "http://127.0.0.1:" + again.port() + "/v1/agents/" + agent + "/messages"))
                    .header("Authorization", "Bearer " + fx.ana).header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"input\": \"still there?\"}")).build());
            assertThat(r.status()).as(r.text()).isEqualTo(200);
            assertThat(r.text()).contains("You said: still there?");
            List<ConversationMessage> history = fx.store.messages().list(scope, MessageQuery.all());
            long calls = history.stream().mapToLong(m -> m.toolCalls().size()).sum();
            long results = history.stream().filter(m -> m.role() == MessageRole.TOOL).count();
            assertThat(results).as("every call has its result").isEqualTo(calls);
        } finally {
            again.close();
            fx.search.close();
            fx.store.close();
        }
    }
}
