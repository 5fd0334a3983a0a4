package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.TestTools.BlockOp;
import dev.engram.framework.TestTools.Counting;
import dev.engram.framework.TestTools.Echo;
import dev.engram.framework.TestTools.Nothing;
import dev.engram.framework.TestTools.Order;
import dev.engram.framework.TestTools.ReadFile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ToolExecutorTest {
    private ToolRegistry registry;
    private Counting<ReadFile, String> readFile;
    private Counting<Echo, String> write;
    private Counting<Echo, String> shell;
    private Counting<BlockOp, BlockOp> block;
    private Counting<Order, Order> order;

    @BeforeEach
    void setUp() {
        registry = ToolRegistry.create();
        readFile = Counting.of("file_read", ReadFile.class, SafetyTier.READ_ONLY, (in, ctx) -> "contents of " + in.path());
        write = Counting.of("file_write", Echo.class, SafetyTier.SIDE_EFFECTING, (in, ctx) -> "wrote " + in.text());
        shell = Counting.of("shell_exec", Echo.class, SafetyTier.PRIVILEGED, (in, ctx) -> "ran " + in.text());
        block = Counting.of("block", BlockOp.class, SafetyTier.SIDE_EFFECTING, (in, ctx) -> in);
        order = Counting.of("order", Order.class, SafetyTier.READ_ONLY, (in, ctx) -> in);
        registry.register(readFile).register(write).register(shell).register(block).register(order);
    }

    private ToolExecutor executor() {
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build();
    }

    private static ToolCall call(String name, String args) {
        return new ToolCall("call-1", name, args);
    }

    @Nested
    class Lookup {
        @Test
        void unknownToolListsTheToolsThatExist() {
            ToolResult r = executor().execute(call("file_raed", "{}"), ToolContext.empty());
            assertThat(r.status()).isEqualTo(ToolStatus.UNKNOWN_TOOL);
            assertThat(r.isError()).isTrue();
            assertThat(r.content()).isEqualTo(
                    "Unknown tool 'file_raed'. Available tools: block, file_read, file_write, order, shell_exec.");
            assertThat(r.callId()).isEqualTo("call-1");
        }

        @Test
        void unknownToolListsOnlyToolsThePolicyPermits() {
            ToolExecutor ex = ToolExecutor.builder(registry).policy(ToolPolicy.builder().allow("file_*").build()).build();
            ToolResult r = ex.execute(call("nope", "{}"), ToolContext.empty());
            assertThat(r.content()).isEqualTo("Unknown tool 'nope'. Available tools: file_read, file_write.");
        }

        @Test
        void toolRegisteredAtRunTimeIsCallableAtOnce() {
            ToolExecutor ex = executor();
            assertThat(ex.execute(call("late", "{\"text\":\"x\"}"), ToolContext.empty()).status()).isEqualTo(ToolStatus.UNKNOWN_TOOL);
            registry.register(AiTool.of("late", "Registered late.", Echo.class, SafetyTier.READ_ONLY, (in, c) -> in.text()));
            assertThat(ex.execute(call("late", "{\"text\":\"x\"}"), ToolContext.empty()).content()).isEqualTo("x");
            registry.unregister("late");
            assertThat(ex.execute(call("late", "{\"text\":\"x\"}"), ToolContext.empty()).status()).isEqualTo(ToolStatus.UNKNOWN_TOOL);
        }
    }

    @Nested
    class Policy {
        @Test
        void deniedToolDoesNotRun() {
            ToolExecutor ex = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO)
                    .policy(ToolPolicy.builder().deny("shell_*").build()).build();
            ToolResult r = ex.execute(call("shell_exec", "{\"text\":\"rm -rf /\"}"), ToolContext.empty());
            assertThat(r.status()).isEqualTo(ToolStatus.DENIED_BY_POLICY);
            assertThat(r.content()).isEqualTo("Tool 'shell_exec' is not allowed for this agent.");
            assertThat(shell.runs).hasValue(0);
        }

        @Test
        void denyWinsOverAllow() {
            ToolExecutor ex = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO)
                    .policy(ToolPolicy.builder().allow("file_*").deny("file_write").build()).build();
            assertThat(ex.execute(call("file_write", "{\"text\":\"a\"}"), ToolContext.empty()).status())
                    .isEqualTo(ToolStatus.DENIED_BY_POLICY);
            assertThat(ex.execute(call("file_read", "{\"path\":\"a\"}"), ToolContext.empty()).status())
                    .isEqualTo(ToolStatus.SUCCESS);
            assertThat(ex.execute(call("block", "{\"operation\":\"view\",\"label\":\"a\"}"), ToolContext.empty()).status())
                    .isEqualTo(ToolStatus.DENIED_BY_POLICY);
            assertThat(write.runs).hasValue(0);
            assertThat(block.runs).hasValue(0);
        }
    }

    @Nested
    class Validation {
        private ToolResult run(String tool, String args) {
            return executor().execute(call(tool, args), ToolContext.empty());
        }

        @Test
        void missingRequiredField() {
            ToolResult r = run("file_read", "{}");
            assertThat(r.status()).isEqualTo(ToolStatus.INVALID_ARGUMENTS);
            assertThat(r.content()).isEqualTo("Tool 'file_read' arguments invalid: missing required field 'path'");
            assertThat(readFile.runs).hasValue(0);
        }

        @Test
        void malformedJsonSaysWhereAndWhat() {
            ToolResult r = run("file_read", "{\"path\": \"a\"");
            assertThat(r.status()).isEqualTo(ToolStatus.INVALID_ARGUMENTS);
            assertThat(r.content()).startsWith("Tool 'file_read' arguments invalid: malformed JSON: ")
                    .contains("line 1").endsWith("Send the arguments as one JSON object.");
            assertThat(readFile.runs).hasValue(0);
        }

        @Test
        void trailingGarbageIsMalformed() {
            assertThat(run("file_read", "{\"path\":\"a\"} extra").status()).isEqualTo(ToolStatus.INVALID_ARGUMENTS);
            assertThat(readFile.runs).hasValue(0);
        }

        @Test
        void nonObjectArguments() {
            ToolResult r = run("file_read", "[\"a\"]");
            assertThat(r.content()).isEqualTo("Tool 'file_read' arguments invalid: expected a JSON object, got array [\"a\"]");
            assertThat(readFile.runs).hasValue(0);
        }

        @Test
        void blankArgumentsMeanNoArguments() {
            registry.register(AiTool.of("ping", "Answers pong.", Nothing.class, SafetyTier.READ_ONLY, (in, c) -> "pong"));
            assertThat(run("ping", "").content()).isEqualTo("pong");
            assertThat(run("file_read", "  ").content()).contains("missing required field 'path'");
        }

        @Test
        void wrongTypeSaysExpectedAndGot() {
            ToolResult r = run("file_read", "{\"path\": 42}");
            assertThat(r.content()).isEqualTo("Tool 'file_read' arguments invalid: field 'path': expected string, got integer 42");
            assertThat(readFile.runs).hasValue(0);
        }

        @Test
        void badEnumValueListsTheAllowedValues() {
            ToolResult r = run("file_read", "{\"path\": \"a\", \"encoding\": \"latin-1\"}");
            assertThat(r.content()).isEqualTo(
                    "Tool 'file_read' arguments invalid: field 'encoding': expected one of [\"utf-8\",\"ascii\"], got \"latin-1\"");
            assertThat(readFile.runs).hasValue(0);
        }

        @Test
        void unknownFieldListsTheExpectedFields() {
            ToolResult r = run("file_read", "{\"path\": \"a\", \"line\": 3}");
            assertThat(r.content()).isEqualTo("Tool 'file_read' arguments invalid: unknown field 'line'; "
                    + "expected fields: path, start_line, encoding");
            assertThat(readFile.runs).hasValue(0);
        }

        @Test
        void everyProblemIsListedWithItsPath() {
            ToolResult r = run("order", "{\"items\": [{\"name\": \"tea\", \"quantity\": \"two\"}, {\"quantity\": 1}], \"express\": \"yes\"}");
            assertThat(r.content()).startsWith("Tool 'order' arguments invalid: ")
                    .contains("field 'express': expected boolean, got string \"yes\"")
                    .contains("field 'items[0].quantity': expected integer, got string \"two\"")
                    .contains("missing required field 'items[1].name'");
            assertThat(order.runs).hasValue(0);
        }

        @Test
        void validArgumentsReachTheToolTyped() {
            ToolResult r = run("file_read", "{\"path\": \"notes.md\", \"start_line\": 3, \"encoding\": \"ascii\"}");
            assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
            assertThat(r.content()).isEqualTo("contents of notes.md");
            assertThat(r.isError()).isFalse();
        }

        @Test
        void operationToolChecksTheChosenOperationsFields() {
            assertThat(run("block", "{\"operation\": \"replace\", \"label\": \"human\", \"old_text\": \"a\"}").content())
                    .isEqualTo("Tool 'block' arguments invalid: missing required field 'new_text' (operation 'replace')");
            assertThat(run("block", "{\"operation\": \"view\", \"label\": \"human\", \"text\": \"a\"}").content())
                    .isEqualTo("Tool 'block' arguments invalid: field 'text' is not used by operation 'view'; expected fields: label");
            assertThat(run("block", "{\"operation\": \"delete\", \"label\": \"human\"}").content())
                    .isEqualTo("Tool 'block' arguments invalid: field 'operation': expected one of "
                            + "[\"append\",\"replace\",\"view\"], got \"delete\"");
            assertThat(run("block", "{\"label\": \"human\"}").content())
                    .isEqualTo("Tool 'block' arguments invalid: missing required field 'operation'");
            assertThat(block.runs).hasValue(0);
        }

        @Test
        void operationToolGetsTheOperationRecord() {
            ToolResult r = run("block", "{\"operation\": \"replace\", \"label\": \"human\", \"old_text\": \"a\", \"new_text\": \"b\"}");
            assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
            assertThat(r.content()).isEqualTo("{\"label\":\"human\",\"old_text\":\"a\",\"new_text\":\"b\"}");
        }
    }

    @Nested
    class Approval {
        private final List<ApprovalRequest> asked = new ArrayList<>();

        private ToolContext context(ApprovalDecision answer) {
            return ToolContext.builder().userId("u1").agentId("a1").sessionId("s1").approvalHandler(request -> {
                asked.add(request);
                return CompletableFuture.completedFuture(answer);
            }).build();
        }

        private ToolExecutor executor(ApprovalMode mode, ApprovalRule... rules) {
            ToolExecutor.Builder b = ToolExecutor.builder(registry).approvalMode(mode);
            for (ApprovalRule r : rules) {
                b.approvalRule(r);
            }
            return b.build();
        }

        @Test
        void askModeAsksForEverySideEffectingAndPrivilegedCallButNotReadOnly() {
            ToolExecutor ex = executor(ApprovalMode.ASK, ApprovalRule.autoApprove("*"));
            ToolContext ctx = context(ApprovalDecision.approveForSession());
            ex.execute(call("file_write", "{\"text\":\"a\"}"), ctx);
            ex.execute(call("file_write", "{\"text\":\"b\"}"), ctx);
            ex.execute(call("shell_exec", "{\"text\":\"ls\"}"), ctx);
            ex.execute(call("file_read", "{\"path\":\"a\"}"), ctx);
            assertThat(asked).extracting(ApprovalRequest::toolName).containsExactly("file_write", "file_write", "shell_exec");
            assertThat(write.runs).hasValue(2);
        }

        @Test
        void autoModeRunsReadOnlyAndAsksForTheRest() {
            ToolExecutor ex = executor(ApprovalMode.AUTO);
            ToolContext ctx = context(ApprovalDecision.approve());
            assertThat(ex.execute(call("file_read", "{\"path\":\"a\"}"), ctx).status()).isEqualTo(ToolStatus.SUCCESS);
            assertThat(ex.execute(call("file_write", "{\"text\":\"a\"}"), ctx).status()).isEqualTo(ToolStatus.SUCCESS);
            assertThat(asked).extracting(ApprovalRequest::toolName).containsExactly("file_write");
        }

        @Test
        void autoModeRemembersASessionApproval() {
            ToolExecutor ex = executor(ApprovalMode.AUTO);
            ex.execute(call("file_write", "{\"text\":\"a\"}"), context(ApprovalDecision.approveForSession()));
            ex.execute(call("file_write", "{\"text\":\"b\"}"), context(ApprovalDecision.deny()));
            assertThat(asked).hasSize(1);
            assertThat(write.runs).hasValue(2);
            ToolContext otherSession = context(ApprovalDecision.deny()).toBuilder().sessionId("s2").build();
            assertThat(ex.execute(call("file_write", "{\"text\":\"c\"}"), otherSession).status())
                    .isEqualTo(ToolStatus.APPROVAL_DENIED);
            assertThat(write.runs).hasValue(2);
        }

        @Test
        void mayAskForApprovalFollowsTheModeTiersRulesAndPolicy() {
            assertThat(executor(ApprovalMode.YOLO).mayAskForApproval()).isFalse();
            assertThat(executor(ApprovalMode.YOLO, ApprovalRule.alwaysAsk("shell_exec").whenArgument("/text", "rm *"))
                    .mayAskForApproval()).as("an always-ask rule that may match").isTrue();
            assertThat(executor(ApprovalMode.AUTO).mayAskForApproval()).as("file_write, block and shell_exec ask").isTrue();
            assertThat(executor(ApprovalMode.AUTO, ApprovalRule.autoApprove("file_*"), ApprovalRule.autoApprove("shell_exec"),
                    ApprovalRule.autoApprove("block")).mayAskForApproval()).as("every side-effecting call pre-approved").isFalse();
            assertThat(executor(ApprovalMode.AUTO, ApprovalRule.autoApprove("file_*"), ApprovalRule.autoApprove("block"),
                    ApprovalRule.autoApprove("shell_*").whenArgument("/text", "git status*")).mayAskForApproval())
                    .as("shell_exec pre-approved for some arguments only").isTrue();
            assertThat(executor(ApprovalMode.ASK, ApprovalRule.autoApprove("*")).mayAskForApproval()).isTrue();
            assertThat(ToolExecutor.builder(registry).approvalMode(ApprovalMode.ASK)
                    .policy(ToolPolicy.builder().allow("file_read", "order").build()).build().mayAskForApproval())
                    .as("only read-only tools permitted").isFalse();
        }

        @Test
        void yoloAsksNothingExceptAlwaysAskRules() {
            ToolExecutor ex = executor(ApprovalMode.YOLO, ApprovalRule.alwaysAsk("shell_exec").whenArgument("/text", "rm *"));
            ToolContext ctx = context(ApprovalDecision.deny("not today"));
            assertThat(ex.execute(call("shell_exec", "{\"text\":\"ls\"}"), ctx).status()).isEqualTo(ToolStatus.SUCCESS);
            ToolResult r = ex.execute(call("shell_exec", "{\"text\":\"rm -rf build\"}"), ctx);
            assertThat(r.status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
            assertThat(r.content()).isEqualTo("Tool 'shell_exec' was not approved (the user denied it: not today), so it did not run.");
            assertThat(shell.runs).hasValue(1);
        }

        @Test
        void alwaysAskAppliesToReadOnlyToolsToo() {
            ToolExecutor ex = executor(ApprovalMode.AUTO, ApprovalRule.alwaysAsk("file_read").whenArgument("/path", "*.env"));
            ToolContext ctx = context(ApprovalDecision.deny());
            assertThat(ex.execute(call("file_read", "{\"path\":\"README.md\"}"), ctx).status()).isEqualTo(ToolStatus.SUCCESS);
            assertThat(ex.execute(call("file_read", "{\"path\":\"prod.env\"}"), ctx).status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
            assertThat(readFile.runs).hasValue(1);
        }

        @Test
        void autoApproveRuleMatchesNameAndArgumentPattern() {
            ToolExecutor ex = executor(ApprovalMode.AUTO, ApprovalRule.autoApprove("shell_*").whenArgument("/text", "git status*"));
            ToolContext ctx = context(ApprovalDecision.deny());
            assertThat(ex.execute(call("shell_exec", "{\"text\":\"git status --short\"}"), ctx).status()).isEqualTo(ToolStatus.SUCCESS);
            assertThat(ex.execute(call("shell_exec", "{\"text\":\"git push\"}"), ctx).status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
            assertThat(asked).extracting(ApprovalRequest::arguments).containsExactly("{\"text\":\"git push\"}");
            assertThat(shell.runs).hasValue(1);
        }

        @Test
        void deniedCallRunsNothing() {
            ToolResult r = executor(ApprovalMode.AUTO).execute(call("file_write", "{\"text\":\"a\"}"), context(ApprovalDecision.deny()));
            assertThat(r.status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
            assertThat(r.content()).isEqualTo("Tool 'file_write' was not approved (the user denied it), so it did not run.");
            assertThat(write.runs).hasValue(0);
        }

        @Test
        void handlerTimeoutDenies() {
            ToolExecutor ex = ToolExecutor.builder(registry).approvalTimeout(Duration.ofMillis(100)).build();
            ToolContext ctx = ToolContext.builder().approvalHandler(request -> new CompletableFuture<>()).build();
            ToolResult r = ex.execute(call("file_write", "{\"text\":\"a\"}"), ctx);
            assertThat(r.status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
            assertThat(r.content()).isEqualTo("Tool 'file_write' was not approved (no answer came within 100 ms), so it did not run.");
            assertThat(write.runs).hasValue(0);
        }

        @Test
        void failingHandlerDenies() {
            ToolContext throwing = ToolContext.builder().approvalHandler(request -> {
                throw new IllegalStateException("handler broke");
            }).build();
            ToolContext failed = ToolContext.builder()
                    .approvalHandler(request -> CompletableFuture.failedFuture(new IllegalStateException("x"))).build();
            ToolExecutor ex = executor(ApprovalMode.AUTO);
            assertThat(ex.execute(call("file_write", "{\"text\":\"a\"}"), throwing).content())
                    .isEqualTo("Tool 'file_write' was not approved (the approval request failed), so it did not run.");
            assertThat(ex.execute(call("file_write", "{\"text\":\"a\"}"), failed).status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
            assertThat(write.runs).hasValue(0);
        }

        @Test
        void noHandlerMeansNoApproval() {
            ToolResult r = executor(ApprovalMode.AUTO).execute(call("file_write", "{\"text\":\"a\"}"), ToolContext.empty());
            assertThat(r.status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
            assertThat(r.content()).contains("needs approval, but no one can be asked");
            assertThat(write.runs).hasValue(0);
        }

        @Test
        void requestCarriesPreviewArgumentsAndIdentity() {
            registry.unregister("file_write");
            registry.register(write.withPreview("--- a\n+++ b"));
            executor(ApprovalMode.AUTO).execute(call("file_write", "{\"text\":\"a\"}"), context(ApprovalDecision.approve()));
            ApprovalRequest request = asked.get(0);
            assertThat(request.preview()).contains("--- a\n+++ b");
            assertThat(request.tier()).isEqualTo(SafetyTier.SIDE_EFFECTING);
            assertThat(request.arguments()).isEqualTo("{\"text\":\"a\"}");
            assertThat(request.context().userId()).contains("u1");
        }

        @Test
        void invalidArgumentsAreRejectedBeforeAnyoneIsAsked() {
            executor(ApprovalMode.ASK).execute(call("file_write", "{}"), context(ApprovalDecision.approve()));
            assertThat(asked).isEmpty();
        }
    }

    @Nested
    class Running {
        @Test
        void timedOutToolIsInterruptedAndSaysSo() throws Exception {
            CountDownLatch interrupted = new CountDownLatch(1);
            registry.register(Counting.of("slow", Nothing.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    interrupted.countDown();
                    throw e;
                }
                return "never";
            }).withTimeout(Duration.ofMillis(200)));
            ToolResult r = executor().execute(call("slow", "{}"), ToolContext.empty());
            assertThat(r.status()).isEqualTo(ToolStatus.TIMED_OUT);
            assertThat(r.content()).isEqualTo("Tool 'slow' timed out after 200 ms and was stopped.");
            assertThat(interrupted.await(5, TimeUnit.SECONDS)).as("the tool thread was interrupted").isTrue();
        }

        @Test
        void toolExceptionMessageGoesToTheModelVerbatim() {
            registry.register(AiTool.of("fail", "Fails.", Nothing.class, SafetyTier.READ_ONLY, (in, c) -> {
                throw new ToolException("No note with id note-42 exists; list notes with memory_search.");
            }));
            ToolResult r = executor().execute(call("fail", "{}"), ToolContext.empty());
            assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(r.content()).isEqualTo("No note with id note-42 exists; list notes with memory_search.");
        }

        @Test
        void unexpectedExceptionIsCuratedAndLeaksNothing() {
            registry.register(AiTool.of("crash", "Crashes.", Nothing.class, SafetyTier.READ_ONLY, (in, c) -> {
                throw new IllegalStateException("jdbc:postgresql://db.internal:5432 password=hunter2");
            }));
            ToolResult r = executor().execute(call("crash", "{}"), ToolContext.empty());
            assertThat(r.status()).isEqualTo(ToolStatus.FAILED);
            assertThat(r.content()).isEqualTo("Tool 'crash' failed with an internal error; the details were logged. "
                    + "Try a different approach, or tell the user the tool is not working.");
            assertThat(r.content()).doesNotContain("hunter2", "IllegalStateException", "at dev.");
        }

        @Test
        void missingIdentityIsAnErrorResult() {
            registry.register(AiTool.of("whoami", "Says who.", Nothing.class, SafetyTier.READ_ONLY,
                    (in, c) -> c.requireUserId()));
            ToolResult none = executor().execute(call("whoami", "{}"), ToolContext.empty());
            assertThat(none.status()).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(none.content()).contains("has no user id");
            ToolResult some = executor().execute(call("whoami", "{}"), ToolContext.builder().userId("alice").build());
            assertThat(some.content()).isEqualTo("alice");
        }

        @Test
        void outputIsSerialised() {
            registry.register(AiTool.of("obj", "Object.", Nothing.class, SafetyTier.READ_ONLY,
                    (in, c) -> Map.of("noteId", "note-1")));
            registry.register(AiTool.of("none", "Null.", Nothing.class, SafetyTier.READ_ONLY, (in, c) -> null));
            registry.register(AiTool.of("rec", "Record.", Nothing.class, SafetyTier.READ_ONLY,
                    (in, c) -> new TestTools.Item("tea", 2)));
            assertThat(executor().execute(call("obj", "{}"), ToolContext.empty()).content()).isEqualTo("{\"noteId\":\"note-1\"}");
            assertThat(executor().execute(call("none", "{}"), ToolContext.empty()).content()).isEqualTo("OK");
            assertThat(executor().execute(call("rec", "{}"), ToolContext.empty()).content()).isEqualTo("{\"name\":\"tea\",\"quantity\":2}");
        }

        @Test
        void durationIsMeasured() {
            ToolResult r = executor().execute(call("file_read", "{\"path\":\"a\"}"), ToolContext.empty());
            assertThat(r.duration()).isPositive();
        }
    }

    @Nested
    class Cancellation {
        @Test
        void cancelledBeforeRunningRunsNothing() {
            CancellationToken token = CancellationToken.create();
            token.cancel();
            ToolResult r = executor().execute(call("file_write", "{\"text\":\"a\"}"),
                    ToolContext.builder().cancellation(token).build());
            assertThat(r.status()).isEqualTo(ToolStatus.CANCELLED);
            assertThat(write.runs).hasValue(0);
        }

        @Test
        void cancellingInterruptsARunningTool() throws Exception {
            CountDownLatch started = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            registry.register(AiTool.of("wait", "Waits.", Nothing.class, SafetyTier.READ_ONLY, (in, c) -> {
                started.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                    throw e;
                }
                return "done";
            }));
            CancellationToken token = CancellationToken.create();
            AtomicReference<ToolResult> result = new AtomicReference<>();
            Thread caller = Thread.ofVirtual().start(() ->
                    result.set(executor().execute(call("wait", "{}"), ToolContext.builder().cancellation(token).build())));
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
            token.cancel();
            caller.join(5_000);
            assertThat(result.get().status()).isEqualTo(ToolStatus.CANCELLED);
            assertThat(result.get().content()).isEqualTo("Tool call 'wait' was cancelled.");
            Thread.sleep(50);
            assertThat(interrupted).isTrue();
        }

        @Test
        void cancellingWhileWaitingForApprovalRunsNothing() throws Exception {
            CountDownLatch asking = new CountDownLatch(1);
            CancellationToken token = CancellationToken.create();
            ToolContext ctx = ToolContext.builder().cancellation(token).approvalHandler(request -> {
                asking.countDown();
                return new CompletableFuture<>();
            }).build();
            AtomicReference<ToolResult> result = new AtomicReference<>();
            Thread caller = Thread.ofVirtual().start(() ->
                    result.set(ToolExecutor.builder(registry).build().execute(call("file_write", "{\"text\":\"a\"}"), ctx)));
            assertThat(asking.await(5, TimeUnit.SECONDS)).isTrue();
            token.cancel();
            caller.join(5_000);
            assertThat(result.get().status()).isEqualTo(ToolStatus.CANCELLED);
            assertThat(write.runs).hasValue(0);
        }
    }

    @Nested
    class Truncation {
        @Test
        void longOutputIsCutToTheBudgetWithTheNotice() {
            registry.register(AiTool.of("big", "Big.", Nothing.class, SafetyTier.READ_ONLY, (in, c) -> "x".repeat(40_000)));
            ToolResult r = executor().execute(call("big", "{}"), ToolContext.empty());
            assertThat(r.truncated()).isTrue();
            assertThat(r.originalBytes()).isEqualTo(40_000);
            assertThat(r.content()).endsWith("[output truncated — original size: 40000 bytes]");
            assertThat(r.content().getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSizeLessThanOrEqualTo(16 * 1024);
        }

        @Test
        void toolChoosesToKeepTheTail() {
            registry.register(Counting.of("log", Nothing.class, SafetyTier.READ_ONLY,
                    (in, c) -> "start " + "x".repeat(1_000) + " end").withTruncation(dev.engram.framework.Truncation.KEEP_TAIL));
            ToolResult r = ToolExecutor.builder(registry).outputBudgetBytes(300).build().execute(call("log", "{}"), ToolContext.empty());
            assertThat(r.content()).startsWith("[output truncated — original size: 1010 bytes]\n").endsWith(" end");
            assertThat(r.content()).doesNotContain("start");
        }

        @Test
        void budgetBelowTheMinimumIsRejectedAtBuildTime() {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ToolExecutor.builder(registry).outputBudgetBytes(10))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("output budget must be at least 256 bytes to leave room for the truncation notice, got 10");
        }
    }
}
