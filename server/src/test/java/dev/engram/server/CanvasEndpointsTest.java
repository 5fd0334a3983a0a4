package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Scope;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Canvas artefacts over HTTP: the page is served to its owner's key or a signed link, sandboxed by its content security
 * policy (scripts in an opaque origin, no network), and to anyone else it is not there.
 */
class CanvasEndpointsTest {
    private static final String PAGE = "<html><body><script>document.body.append('hi ✓')</script></body></html>";

    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        agent = fx.agent(fx.ana, "painter");
        fx.store.canvases().write(Scope.of("ana", agent), "chart", "Sales", "<p>v1</p>");
        fx.store.canvases().write(Scope.of("ana", agent), "chart", "Sales", PAGE);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void theOwnersKeyGetsThePageSandboxedWithoutNetwork() {
        ServerFixture.Response r = fx.get(fx.ana, "/canvas/" + agent + "/chart");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo(PAGE);
        String csp = r.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(csp).startsWith("sandbox allow-scripts;").doesNotContain("allow-same-origin")
                .contains("default-src 'none'", "script-src 'unsafe-inline'", "style-src 'unsafe-inline'", "connect-src 'none'",
                        "form-action 'none'");
        assertThat(r.headers().firstValue("Content-Type")).contains("text/html; charset=utf-8");
        assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
        assertThat(r.headers().firstValue("Referrer-Policy")).contains("no-referrer");
        assertThat(r.headers().firstValue("Cache-Control")).contains("private, no-store");
        assertThat(fx.get(fx.ana, "/canvas/" + agent + "/chart?version=1").text()).isEqualTo("<p>v1</p>");
        assertThat(fx.get(fx.ana, "/canvas/" + agent + "/chart?version=3").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/canvas/" + agent + "/nothing").status()).isEqualTo(404);
    }

    @Test
    void anotherUsersKeyGets404AndNoKeyGets401() {
        ServerFixture.Response bens = fx.get(fx.ben, "/canvas/" + agent + "/chart");
        assertThat(bens.status()).isEqualTo(404);
        assertThat(bens.text()).doesNotContain("hi ✓");
        assertThat(fx.get(fx.ben, "/v1/agents/" + agent + "/canvas").status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/agents/" + agent + "/canvas/chart/link", ServerFixture.obj()).status()).isEqualTo(404);
        ServerFixture.Response none = fx.get(null, "/canvas/" + agent + "/chart");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.text()).doesNotContain("hi ✓");
    }

    @Test
    void theListAndVersionsShowWhatThereIs() {
        ServerFixture.Response list = fx.get(fx.ana, "/v1/agents/" + agent + "/canvas");
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.json()).hasSize(1);
        assertThat(list.json().path(0).path("name").asString()).isEqualTo("chart");
        assertThat(list.json().path(0).path("version").asInt()).isEqualTo(2);
        assertThat(list.json().path(0).path("path").asString()).isEqualTo("/canvas/" + agent + "/chart?version=2");
        ServerFixture.Response versions = fx.get(fx.ana, "/v1/agents/" + agent + "/canvas/chart/versions");
        assertThat(versions.json()).hasSize(2);
        assertThat(versions.json().path(0).path("version").asInt()).isEqualTo(1);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/canvas/none/versions").status()).isEqualTo(404);
    }

    @Test
    void aSignedLinkOpensOneVersionWithoutAKeyAndNothingElse() {
        ServerFixture.Response link = fx.post(fx.ana, "/v1/agents/" + agent + "/canvas/chart/link?version=1", ServerFixture.obj());
        assertThat(link.status()).as(link.text()).isEqualTo(200);
        String url = link.json().path("url").asString();
        assertThat(url).startsWith("/canvas/" + agent + "/chart?version=1&user=ana&expires=").contains("&sig=");
        ServerFixture.Response page = fx.get(null, url);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.text()).isEqualTo("<p>v1</p>");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow()).startsWith("sandbox allow-scripts;");

        assertThat(fx.get(null, url.replace("version=1", "version=2")).status()).isEqualTo(401);
        assertThat(fx.get(null, url.replace("user=ana", "user=ben")).status()).isEqualTo(401);
        assertThat(fx.get(null, url.replace("/chart?", "/other?")).status()).isEqualTo(401);
        assertThat(fx.get(null, url.substring(0, url.length() - 2) + "xx").status()).isEqualTo(401);
        String expires = url.replaceAll(".*expires=(\\d+).*", "$1");
        assertThat(fx.get(null, url.replace("expires=" + expires, "expires=" + (Long.parseLong(expires) + 3600))).status())
                .isEqualTo(401);
        ServerFixture.Response latest = fx.post(fx.ana, "/v1/agents/" + agent + "/canvas/chart/link", ServerFixture.obj());
        assertThat(fx.get(null, latest.json().path("url").asString()).text()).isEqualTo(PAGE);
    }
}
