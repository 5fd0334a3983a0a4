package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.Image;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageImage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.net.URI;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Image content parts in user messages: decoded within the server's limits, refused for a model that cannot see, stored
 * with the message, shown back in Letta's shape, and what the model is sent. Every refusal stores nothing.
 */
class ImageMessagesTest {
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10};
    private static final String PNG_BASE64 = Base64.getEncoder().encodeToString(PNG);

    @TempDir
    Path dir;
    ServerFixture fx;
    ScriptedChatModel eyes;
    /** An agent on a model that sees (a scripted model that declares vision). */
    String seeing;
    /** An agent on the echo model, which cannot see. */
    String blind;

    @BeforeEach
    void start() {
        eyes = ScriptedChatModel.fromJson("""
                {"vision": true, "turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "A cat."}}],
                  "expect_in_prompt": ["[image image/png, 8 bytes]"]}]}""");
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel()).model("test:eyes", eyes))
                .imageLimits(64, 2));
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "viewer", "model", "test:eyes"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        seeing = created.json().path("id").asString();
        blind = fx.agent(fx.ana, "helper");
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private static ObjectNode base64(String mediaType, String data) {
        return obj("type", "image", "source", obj("type", "base64", "media_type", mediaType, "data", data));
    }

    private static ObjectNode withParts(Object... parts) {
        return obj("messages", List.of(obj("role", "user", "content", List.of(parts))));
    }

    private List<ConversationMessage> stored(String agent) {
        return fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all());
    }

    @Test
    void imagesAreSentToTheModelStoredAndListedInLettasShape() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + seeing + "/messages", withParts(
                obj("type", "text", "text", "What is this?"), base64("image/png", PNG_BASE64),
                obj("type", "image", "source", obj("type", "url", "url", "https://example.com/cat.jpg"))));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(eyes.played()).isEqualTo(1);
        ChatMessage.User sent = eyes.requests().getFirst().messages().stream().filter(m -> m instanceof ChatMessage.User)
                .map(m -> (ChatMessage.User) m).reduce((a, b) -> b).orElseThrow();
        assertThat(sent.text()).isEqualTo("What is this?");
        assertThat(sent.images()).containsExactly(Image.inline("image/png", PNG), Image.url(URI.create("https://example.com/cat.jpg")));

        List<MessageImage> images = stored(seeing).getFirst().images();
        assertThat(images).containsExactly(MessageImage.inline("image/png", PNG), MessageImage.url("https://example.com/cat.jpg"));
        JsonNode expected = ServerFixture.JSON.readTree("""
                [{"type": "text", "text": "What is this?"},
                 {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "%s", "detail": null}},
                 {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}}]""".formatted(PNG_BASE64));
        assertThat(r.json().path("messages").get(0).path("content")).isEqualTo(expected);

        JsonNode listed = fx.get(fx.ana, "/v1/agents/" + seeing + "/messages").json();
        JsonNode user = listed.valueStream().filter(m -> m.path("message_type").asString().equals("user_message"))
                .findFirst().orElseThrow();
        assertThat(user.path("content")).isEqualTo(expected);
        ServerFixture.Response one = fx.get(fx.ana, "/v1/messages/" + user.path("id").asString());
        assertThat(one.status()).as(one.text()).isEqualTo(200);
        assertThat(one.json().toString()).contains(PNG_BASE64);
    }

    @Test
    void aMessageOfImagesOnlyIsAccepted() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + seeing + "/messages", withParts(base64("image/png", PNG_BASE64)));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(eyes.played()).isEqualTo(1);
        assertThat(stored(seeing).getFirst().content()).isEmpty();
        assertThat(stored(seeing).getFirst().images()).hasSize(1);
    }

    @Test
    void aConversationsStreamedMessageCarriesItsImagesAndForkKeepsThem() {
        String conv = fx.post(fx.ana, "/v1/conversations/?agent_id=" + seeing, obj()).json().path("id").asString();
        List<String> events = fx.stream(fx.ana, "/v1/conversations/" + conv + "/messages", withParts(
                obj("type", "text", "text", "What is this?"), base64("image/png", PNG_BASE64)));
        assertThat(events.getLast()).isEqualTo("[DONE]");
        assertThat(events).anyMatch(e -> e.contains("A cat."));
        ConversationMessage user = stored(seeing).getFirst();
        assertThat(user.sessionId()).isEqualTo(conv);
        assertThat(user.images()).containsExactly(MessageImage.inline("image/png", PNG));
        JsonNode listed = fx.get(fx.ana, "/v1/conversations/" + conv + "/messages?order=asc").json();
        assertThat(listed.get(0).path("content").get(1).path("source").path("data").asString()).isEqualTo(PNG_BASE64);

        ServerFixture.Response fork = fx.post(fx.ana, "/v1/conversations/" + conv + "/fork", obj());
        assertThat(fork.status()).as(fork.text()).isEqualTo(200);
        String forked = fork.json().path("id").asString();
        assertThat(stored(seeing).stream().filter(m -> m.sessionId().equals(forked)).findFirst().orElseThrow().images())
                .containsExactly(MessageImage.inline("image/png", PNG));
    }

    @Test
    void badImagesAreRefusedNamingTheProblemAndNothingIsStored() {
        String path = "/v1/agents/" + seeing + "/messages";
        ServerFixture.Response bad64 = fx.post(fx.ana, path, withParts(obj("type", "text", "text", "hi"),
                base64("image/png", "not base64!")));
        assertThat(bad64.status()).isEqualTo(422);
        assertThat(bad64.text()).contains("The image data is not valid base64").contains("\"content\"", "\"1\"", "\"source\"", "\"data\"");

        ServerFixture.Response type = fx.post(fx.ana, path, withParts(base64("image/bmp", PNG_BASE64)));
        assertThat(type.status()).isEqualTo(422);
        assertThat(type.text()).contains("Image media type 'image/bmp' is not accepted; use one of image/png, image/jpeg, "
                + "image/gif, image/webp");

        ServerFixture.Response large = fx.post(fx.ana, path, withParts(base64("image/png",
                Base64.getEncoder().encodeToString(new byte[65]))));
        assertThat(large.status()).isEqualTo(413);
        assertThat(large.detail()).isEqualTo("Image 1 of the message is 65 bytes; this server takes images of at most 64 "
                + "bytes (0 KiB). Send a smaller image.");
        ServerFixture.Response huge = fx.post(fx.ana, path, withParts(base64("image/png",
                Base64.getEncoder().encodeToString(new byte[4096]))));
        assertThat(huge.status()).isEqualTo(413);

        ServerFixture.Response many = fx.post(fx.ana, path, withParts(base64("image/png", PNG_BASE64),
                base64("image/png", PNG_BASE64), base64("image/png", PNG_BASE64)));
        assertThat(many.status()).isEqualTo(422);
        assertThat(many.text()).contains("A message may carry at most 2 images on this server");

        ServerFixture.Response url = fx.post(fx.ana, path, withParts(obj("type", "image", "source",
                obj("type", "url", "url", "file:///etc/passwd"))));
        assertThat(url.status()).isEqualTo(422);
        assertThat(url.text()).contains("is not an absolute http(s) URL");

        assertThat(stored(seeing)).isEmpty();
        assertThat(eyes.played()).isZero();
    }

    @Test
    void aModelThatCannotSeeIsNamedAndNothingIsStored() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + blind + "/messages", withParts(
                obj("type", "text", "text", "What is this?"), base64("image/png", PNG_BASE64)));
        assertThat(r.status()).isEqualTo(422);
        assertThat(r.text()).contains("Agent '" + blind + "''s model test:echo cannot see images");
        assertThat(stored(blind)).isEmpty();
        // text-only messages are as before
        ServerFixture.Response text = fx.post(fx.ana, "/v1/agents/" + blind + "/messages",
                withParts(obj("type", "text", "text", "hello")));
        assertThat(text.status()).as(text.text()).isEqualTo(200);
        assertThat(text.json().path("messages").get(0).path("content").asString()).isEqualTo("hello");
        assertThat(stored(blind).getFirst().images()).isEmpty();
    }

    @Test
    void anotherUsersKeyNeitherSendsToTheAgentNorSeesItsImages() {
        fx.post(fx.ana, "/v1/agents/" + seeing + "/messages", withParts(
                obj("type", "text", "text", "What is this?"), base64("image/png", PNG_BASE64),
                obj("type", "image", "source", obj("type", "url", "url", "https://example.com/cat.jpg"))));
        ServerFixture.Response send = fx.post(fx.ben, "/v1/agents/" + seeing + "/messages", withParts(base64("image/png", PNG_BASE64)));
        assertThat(send.status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/agents/" + seeing + "/messages").status()).isEqualTo(404);
        String userMessage = fx.get(fx.ana, "/v1/agents/" + seeing + "/messages").json().valueStream()
                .filter(m -> m.path("message_type").asString().equals("user_message")).findFirst().orElseThrow()
                .path("id").asString();
        ServerFixture.Response one = fx.get(fx.ben, "/v1/messages/" + userMessage);
        assertThat(one.status()).isEqualTo(404);
        assertThat(one.text()).doesNotContain(PNG_BASE64);
        assertThat(stored(seeing)).filteredOn(m -> m.role() == MessageRole.USER).hasSize(1);
    }

    @Test
    void scheduledMessagesRefuseImages() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + seeing + "/schedule", obj("messages", List.of(obj("role",
                "user", "content", List.of(base64("image/png", PNG_BASE64)))), "schedule", obj("type", "one-time",
                "scheduled_at", 4_102_444_800_000L)));
        assertThat(r.status()).as(r.text()).isEqualTo(422);
        assertThat(r.text()).contains("Scheduled messages carry text only, not images");
        assertThat(fx.store.schedules().list(Scope.of("ana", seeing))).isEmpty();
    }
}
