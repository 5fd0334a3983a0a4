package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ModelCancelledException;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.BlockVersion;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sleep-time companion: when it runs, what it edits and as whom, and that it never overlaps its agent's turn. */
class SleeptimeTest {
    private static final String REPLY = "{\"turns\": [{\"text\": \"ok 1\"}, {\"text\": \"ok 2\"}, {\"text\": \"ok 3\"}, {\"text\": \"ok 4\"}]}";

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent primary(int every) {
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:primary")
                .block("human", "What I know about the user", "Name: unknown")
                .sleeptime(new SleeptimeSettings(every, Optional.empty(), "script:sleeper", 3)).build());
    }

    @Test
    void itRunsAfterTheConfiguredMessagesAndItsEditsCarryTheirOrigin() throws Exception {
        ScriptedChatModel sleeper = script("""
                {"turns": [
                  {"tool_calls": [{"name": "memory_rethink", "arguments": {"label": "human", "new_memory": "Name: Ana\\nLikes tea"}}],
                   "expect_in_prompt": ["I am Ana and I like tea", "Name: unknown"]},
                  {"tool_calls": [{"name": "memory_finish_edits", "arguments": {}}]}
                ]}""");
        fx = new AgentFixture(dir).open(b -> b.model("script:primary", script(REPLY)).model("script:sleeper", sleeper));
        Agent agent = primary(2);

        agent.send("I am Ana and I like tea.");
        assertThat(fx.runtime.awaitSleeptime("ana", "helper", Duration.ofSeconds(10))).isTrue();
        assertThat(sleeper.played()).as("not after one message").isZero();
        agent.send("What do you know about me?");
        assertThat(fx.runtime.awaitSleeptime("ana", "helper", Duration.ofSeconds(10))).isTrue();

        assertThat(sleeper.played()).isEqualTo(2);
        assertThat(fx.store.blocks().get(agent.scope(), "human").orElseThrow().value()).isEqualTo("Name: Ana\nLikes tea");
        assertThat(fx.store.blocks().history(agent.scope(), "human")).extracting(BlockVersion::operation).last()
                .isEqualTo("replace by sleep-time agent 'helper-sleeptime'");
        // Its conversation is its own: the agent's recall memory holds only the agent's messages.
        assertThat(fx.messages(agent.scope())).extracting(m -> m.sessionId()).containsOnly("default");
        Agent companion = fx.runtime.agent("ana", "helper-sleeptime");
        assertThat(companion.definition().actsFor()).contains("helper");
        assertThat(companion.definition().model()).isEqualTo("script:sleeper");
        assertThat(companion.definition().maxSteps()).isEqualTo(3);
    }

    @Test
    void itAlsoRunsWhenTheAgentHasBeenIdle() throws Exception {
        ScriptedChatModel sleeper = script("{\"turns\": [{\"tool_calls\": [{\"name\": \"memory_finish_edits\", \"arguments\": {}}]}]}");
        fx = new AgentFixture(dir).open(b -> b.model("script:primary", script(REPLY)).model("script:sleeper", sleeper));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:primary")
                .sleeptime(new SleeptimeSettings(100, Optional.of(Duration.ofMillis(200)), "script:sleeper", 3)).build());
        agent.send("Hello.");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (sleeper.played() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(sleeper.played()).as("the idle companion ran").isEqualTo(1);
        assertThat(fx.runtime.awaitSleeptime("ana", "helper", Duration.ofSeconds(10))).isTrue();
    }

    @Test
    void itNeverBlocksNorOverlapsTheAgentsTurn() throws Exception {
        CountDownLatch sleeperStarted = new CountDownLatch(1);
        AtomicBoolean sleeperRunning = new AtomicBoolean();
        AtomicBoolean overlapped = new AtomicBoolean();
        ChatModel slowSleeper = new ChatModel() {
            @Override
            public String name() {
                return "slow";
            }

            @Override
            public ChatResponse chat(ChatRequest request) {
                sleeperRunning.set(true);
                sleeperStarted.countDown();
                try {
                    Thread.sleep(30_000);
                    return new ChatResponse(ChatMessage.Assistant.text("done"), ChatResponse.Usage.NONE, ChatResponse.StopReason.END_TURN);
                } catch (InterruptedException e) {
                    throw new ModelCancelledException("cancelled");
                } finally {
                    sleeperRunning.set(false);
                }
            }
        };
        ChatModel primaryModel = new ChatModel() {
            private final ScriptedChatModel replies = script(REPLY);

            @Override
            public String name() {
                return "primary";
            }

            @Override
            public ChatResponse chat(ChatRequest request) {
                if (sleeperRunning.get()) {
                    overlapped.set(true);
                }
                return replies.chat(request);
            }
        };
        fx = new AgentFixture(dir).open(b -> b.model("script:primary", primaryModel).model("script:sleeper", slowSleeper));
        Agent agent = primary(1);

        long t0 = System.nanoTime();
        AgentResponse first = agent.send("Hello.");
        assertThat(first.reply()).contains("ok 1");
        assertThat(sleeperStarted.await(10, TimeUnit.SECONDS)).as("the companion started after the turn").isTrue();
        // The turn returned although the companion is still working (it sleeps 30 s).
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(20));
        assertThat(sleeperRunning).isTrue();

        AgentResponse second = agent.send("Hello again.");

        assertThat(second.reply()).contains("ok 2");
        assertThat(overlapped).as("the agent's model was called while the companion ran").isFalse();
        Agent companion = fx.runtime.agent("ana", "helper-sleeptime");
        assertThat(fx.messages(companion.scope())).isNotEmpty().allSatisfy(m -> assertThat(m.toolCalls()).isEmpty());
    }

    @Test
    void theSettingsAreCheckedPersistedAndCarriedByAgentFiles() {
        fx = new AgentFixture(dir).open(b -> b.model("script:primary", script(REPLY))
                .modelPolicy(dev.engram.framework.ModelPolicy.providersOnly().allowSpec("script:sleeper")));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SleeptimeSettings(0, Optional.empty(), "m", 3))
                .hasMessageContaining("at least 1 message");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SleeptimeSettings(1, Optional.of(Duration.ZERO), "m", 3))
                .hasMessageContaining("must be positive");
        Agent agent = primary(4);
        assertThat(fx.runtime.exportAgent("ana", "helper")).contains("\"sleeptime\"", "\"every_messages\" : 4");
        String af = fx.runtime.exportLettaAgentFile("ana", List.of("helper"));
        assertThat(af).contains("\"enable_sleeptime\" : true");
        AgentFileImport imported = fx.runtime.importLettaAgentFile(AgentImport.json(af, "helper.af").user("ben"));
        assertThat(imported.agents().getFirst().definition().sleeptime()).isEqualTo(agent.definition().sleeptime());
    }
}
