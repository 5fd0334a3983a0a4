package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.TestTools.Counting;
import dev.engram.framework.TestTools.Echo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ToolHookTest {
    private ToolRegistry registry;
    private Counting<Echo, String> echo;

    @BeforeEach
    void setUp() {
        registry = ToolRegistry.create();
        echo = Counting.of("echo", Echo.class, SafetyTier.SIDE_EFFECTING, (in, ctx) -> "echo " + in.text());
        registry.register(echo);
    }

    private ToolExecutor executor(ToolHook... hooks) {
        ToolExecutor.Builder b = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO);
        for (ToolHook h : hooks) {
            b.hook(h);
        }
        return b.build();
    }

    private static ToolCall call(String args) {
        return new ToolCall("call-1", "echo", args);
    }

    /** A hook that records when it runs and decides with {@code before}. */
    private static ToolHook recording(List<String> log, String name, ToolHook.Before before) {
        return new ToolHook() {
            @Override
            public Before before(ToolCall call, ToolContext context) {
                log.add(name + ".before " + call.arguments() + " " + context.callId().orElse("?"));
                return before;
            }

            @Override
            public ToolResult after(ToolCall call, ToolResult result, ToolContext context) {
                log.add(name + ".after " + result.content());
                return result.withContent(result.content() + " +" + name);
            }
        };
    }

    @Test
    void hooksRunInTheOrderAddedAroundTheCallEachSeeingThePreviousOnesWork() {
        List<String> log = new CopyOnWriteArrayList<>();
        ToolResult r = executor(recording(log, "a", ToolHook.Before.rewrite("{\"text\":\"b\"}")),
                recording(log, "b", ToolHook.Before.allow())).execute(call("{\"text\":\"a\"}"), ToolContext.empty());

        assertThat(log).containsExactly("a.before {\"text\":\"a\"} call-1", "b.before {\"text\":\"b\"} call-1",
                "a.after echo b", "b.after echo b +a");
        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.content()).isEqualTo("echo b +a +b");
    }

    @Test
    void aDeniedCallDoesNotRunAndTheModelReadsWhyAndLaterHooksAreSkipped() {
        List<String> log = new CopyOnWriteArrayList<>();
        ToolResult r = executor(recording(log, "a", ToolHook.Before.deny("echo is off limits today")),
                recording(log, "b", ToolHook.Before.allow())).execute(call("{\"text\":\"a\"}"), ToolContext.empty());

        assertThat(r.status()).isEqualTo(ToolStatus.DENIED_BY_POLICY);
        assertThat(r.content()).isEqualTo("Tool 'echo' was blocked, so it did not run: echo is off limits today");
        assertThat(echo.runs.get()).isZero();
        assertThat(log).containsExactly("a.before {\"text\":\"a\"} call-1");
    }

    @Test
    void rewrittenArgumentsAreValidatedAsTheModelsAre() {
        ToolResult r = executor(new ToolHook() {
            @Override
            public Before before(ToolCall call, ToolContext context) {
                return Before.rewrite("{\"text\": 5}");
            }
        }).execute(call("{\"text\":\"fine\"}"), ToolContext.empty());

        assertThat(r.status()).isEqualTo(ToolStatus.INVALID_ARGUMENTS);
        assertThat(r.content()).startsWith("Tool 'echo' arguments invalid: field 'text': expected string, got integer");
        assertThat(echo.runs.get()).isZero();
    }

    @Test
    void contextNotesFollowTheOutputOnLinesOfTheirOwn() {
        ToolResult r = executor(hookBefore(ToolHook.Before.addContext("note one")),
                hookBefore(ToolHook.Before.rewrite("{\"text\":\"x\"}").withContext("note two")))
                .execute(call("{\"text\":\"a\"}"), ToolContext.empty());

        assertThat(r.content()).isEqualTo("echo x\n\nnote one\nnote two");
        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
    }

    @Test
    void anAfterHookRewritesTheResultAndAddsMetadataAndItsContentIsCutToTheBudget() {
        ToolExecutor executor = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).outputBudgetBytes(300)
                .hook(new ToolHook() {
                    @Override
                    public ToolResult after(ToolCall call, ToolResult result, ToolContext context) {
                        return result.withContent("y".repeat(1000)).withMetadata("reviewed", true);
                    }
                }).build();

        ToolResult r = executor.execute(call("{\"text\":\"a\"}"), ToolContext.empty());

        assertThat(r.metadata()).containsEntry("reviewed", true);
        assertThat(r.truncated()).isTrue();
        assertThat(Truncator.utf8Length(r.content())).isLessThanOrEqualTo(300);
        assertThat(r.content()).startsWith("yyy");
    }

    @Test
    void aHookThatThrowsIsAnErrorResultNeverAnException() {
        ToolHook broken = hookBefore(null);
        ToolResult before = executor(new ToolHook() {
            @Override
            public Before before(ToolCall call, ToolContext context) {
                throw new IllegalStateException("bug in hook");
            }
        }).execute(call("{\"text\":\"a\"}"), ToolContext.empty());
        ToolResult nullDecision = executor(broken).execute(call("{\"text\":\"a\"}"), ToolContext.empty());
        ToolResult refusedByToolException = executor(new ToolHook() {
            @Override
            public Before before(ToolCall call, ToolContext context) {
                throw new ToolException("The quota for echo is used up.");
            }
        }).execute(call("{\"text\":\"a\"}"), ToolContext.empty());

        assertThat(before.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(before.content()).contains("hook around tool 'echo' failed before the call could run")
                .doesNotContain("bug in hook");
        assertThat(nullDecision.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(refusedByToolException.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(refusedByToolException.content()).isEqualTo("The quota for echo is used up.");
        assertThat(echo.runs.get()).isZero();

        ToolResult after = executor(new ToolHook() {
            @Override
            public ToolResult after(ToolCall call, ToolResult result, ToolContext context) {
                throw new IllegalStateException("bug in hook");
            }
        }).execute(call("{\"text\":\"a\"}"), ToolContext.empty());
        assertThat(echo.runs.get()).isEqualTo(1);
        assertThat(after.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(after.content()).contains("ran, but a hook failed on its result");
    }

    @Test
    void anAfterHookMayNotAnswerAnotherCall() {
        ToolResult r = executor(new ToolHook() {
            @Override
            public ToolResult after(ToolCall call, ToolResult result, ToolContext context) {
                return ToolResult.withoutEffects(new ToolCall("other", "echo", "{}"), ToolStatus.SUCCESS, "forged");
            }
        }).execute(call("{\"text\":\"a\"}"), ToolContext.empty());

        assertThat(r.callId()).isEqualTo("call-1");
        assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
        assertThat(r.content()).doesNotContain("forged");
    }

    @Test
    void hooksTimeCountsInTheCallsDuration() {
        ToolHook slow = new ToolHook() {
            @Override
            public Before before(ToolCall call, ToolContext context) {
                sleep(60);
                return Before.allow();
            }

            @Override
            public ToolResult after(ToolCall call, ToolResult result, ToolContext context) {
                sleep(60);
                return result;
            }
        };

        ToolResult r = executor(slow).execute(call("{\"text\":\"a\"}"), ToolContext.empty());

        assertThat(r.duration()).isGreaterThanOrEqualTo(Duration.ofMillis(120));
    }

    @Test
    void hooksDoNotRunForUnknownToolsOrCallsThePolicyForbids() {
        List<String> log = new CopyOnWriteArrayList<>();
        ToolExecutor executor = ToolExecutor.builder(registry).policy(ToolPolicy.builder().deny("echo").build())
                .hook(recording(log, "a", ToolHook.Before.allow())).build();

        executor.execute(call("{\"text\":\"a\"}"), ToolContext.empty());
        executor.execute(new ToolCall("c2", "nope", "{}"), ToolContext.empty());

        assertThat(log).isEmpty();
    }

    @Test
    void decisionsRejectBadInput() {
        assertThatThrownBy(() -> ToolHook.Before.deny(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reason");
        assertThatThrownBy(() -> ToolHook.Before.addContext("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ToolHook.Before.deny("no").withContext("x")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ToolExecutor.builder(registry).hook(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("hook");
    }

    private static ToolHook hookBefore(ToolHook.Before decision) {
        return new ToolHook() {
            @Override
            public Before before(ToolCall call, ToolContext context) {
                return decision;
            }
        };
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
