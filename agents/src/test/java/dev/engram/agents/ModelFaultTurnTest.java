package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ModelSpec;
import dev.engram.framework.model.ModelTimeoutException;
import dev.engram.framework.model.RetryPolicy;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A turn whose model provider hangs ends within the model's timeout, sent or streamed, with an
 * {@link AgentException} that names the provider and the timeout (its cause a {@link ModelTimeoutException});
 * the user's message stays stored and the agent is free again.
 */
class ModelFaultTurnTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;

    private AgentFixture fx;
    private ServerSocket provider;
    private final List<Socket> held = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws IOException {
        if (fx != null) {
            fx.close();
        }
        provider.close();
        for (Socket s : held) {
            s.close();
        }
    }

    /** A provider on 127.0.0.1 that sends 200 and its headers, then a space every 20 ms, forever. */
    private String trickling() throws IOException {
        provider = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    Socket s = provider.accept();
                    held.add(s);
                    Thread.ofVirtual().start(() -> {
                        try {
                            OutputStream out = s.getOutputStream();
                            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                                    .getBytes(StandardCharsets.US_ASCII));
                            while (true) {
                                out.write(' ');
                                out.flush();
                                Thread.sleep(20);
                            }
                        } catch (IOException | InterruptedException e) {
                            // the client gave up
                        }
                    });
                }
            } catch (IOException e) {
                // closed
            }
        });
        return "http://127.0.0.1:" + provider.getLocalPort() + "/v1#slow-model";
    }

    private Agent agent(String spec) {
        ChatModel model = ChatModel.of(ModelSpec.parse(spec, Map.of()).withTimeout(Duration.ofSeconds(1))
                .withRetry(RetryPolicy.none()));
        fx = new AgentFixture(dir).open(b -> b.model(spec, model));
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").name("Helper").model(spec).build());
    }

    @Test
    void aTricklingProviderEndsTheTurnWithinItsTimeoutNamingProviderAndTimeout() throws IOException {
        String spec = trickling();
        Agent agent = agent(spec);
        for (boolean streamed : List.of(false, true)) {
            long start = System.nanoTime();
            Throwable failure = catchThrowable(() -> {
                if (streamed) {
                    agent.stream("Hello?", event -> { });
                } else {
                    agent.send("Hello?");
                }
            });
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("streamed: " + streamed).isLessThan(Duration.ofSeconds(8));
            assertThat(failure).isInstanceOf(AgentException.class)
                    .hasMessageContaining("stopped waiting for its model " + spec)
                    .hasMessageContaining("openai-compatible server 127.0.0.1:" + provider.getLocalPort())
                    .hasMessageContaining("within the timeout of 1 s")
                    .hasCauseInstanceOf(ModelTimeoutException.class);
            assertThat(agent.isBusy()).isFalse();
        }
        assertThat(fx.messages(ANA)).extracting(ConversationMessage::role).containsExactly(MessageRole.USER, MessageRole.USER);
    }
}
