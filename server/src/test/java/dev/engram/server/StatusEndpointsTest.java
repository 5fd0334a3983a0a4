package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StatusRoutes}: Letta's readiness, metadata status and feedback. */
class StatusEndpointsTest {
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

    @Test
    void readinessIsLettasHealthAnsweredAsReadyzAnswers() throws Exception {
        ServerFixture.Response ready = fx.get(null, "/v1/ready/");
        assertThat(ready.status()).as(ready.text()).isEqualTo(200);
        assertThat(ready.json().path("status").asString()).isEqualTo("ready");
        assertThat(ready.json().path("version").asString()).isNotEmpty();
        assertThat(fx.get(null, "/v1/ready").status()).isEqualTo(200);

        OpsRoutes ops = new OpsRoutes(fx.store, new Metrics(), CompletableFuture.completedFuture(null));
        HttpRouting.Builder routing = HttpRouting.builder();
        Route.register(routing, new StatusRoutes(ops).routes());
        WebServer web = WebServer.builder().host("127.0.0.1").port(0).routing(routing).build().start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> starting = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web.port()
                    + "/v1/ready/")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(starting.statusCode()).isEqualTo(503);
            assertThat(ServerFixture.JSON.readTree(starting.body()).path("status").asString()).isEqualTo("starting");
            assertThat(ServerFixture.JSON.readTree(starting.body()).path("version").asString()).isNotEmpty();
        } finally {
            web.stop();
        }
    }

    @Test
    void metadataStatusSaysThereIsNoProject() {
        ServerFixture.Response status = fx.get(fx.ana, "/v1/metadata/status");
        assertThat(status.status()).as(status.text()).isEqualTo(200);
        assertThat(status.json().has("current_project_id")).isTrue();
        assertThat(status.json().path("current_project_id").isNull()).isTrue();
        assertThat(fx.get(null, "/v1/metadata/status").status()).isEqualTo(401);
    }

    @Test
    void feedbackIsTakenForTheOperatorAndBadFeedbackIsRefused() {
        ServerFixture.Response sent = fx.post(fx.ana, "/v1/metadata/feedback", obj("message", "The search is great",
                "feature", "sdk"));
        assertThat(sent.status()).as(sent.text()).isEqualTo(200);
        assertThat(sent.json().path("success").asBoolean()).isTrue();
        assertThat(fx.post(fx.ana, "/v1/metadata/feedback", obj()).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/metadata/feedback", obj("message", " ")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/metadata/feedback", obj("message", "x".repeat(10_001))).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/metadata/feedback", obj("message", "hi", "feature", "fax")).status()).isEqualTo(422);
        assertThat(fx.post(null, "/v1/metadata/feedback", obj("message", "hi")).status()).isEqualTo(401);
    }
}
