package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.framework.model.ToolChoice;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Letta's tool rules, one kind at a time, on a scripted model that also breaks them. */
class ToolRulesTest {
    private static final Scope ANA = Scope.of("ana", "flow");

    @TempDir
    Path dir;

    private AgentFixture fx;
    private ScriptedChatModel model;
    /** What the test tools were called with, in order: "name note". */
    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());
    /** What the {@code check} tool answers. */
    private volatile String checkAnswer = "True";

    record Note(Optional<String> note) {
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private AiTool<Note, String> step(String name) {
        return AiTool.of(name, "Workflow step " + name + ".", Note.class, SafetyTier.READ_ONLY, (in, ctx) -> {
            ran.add(name + " " + in.note().orElse(""));
            return name + " done";
        });
    }

    /** An agent with tools step_a, step_b, step_c and check (and the defaults) and these rules, on this script. */
    private Agent agent(String turns, Consumer<AgentRuntime.Builder> config, ToolRule... rules) {
        model = script("{\"turns\": " + turns + "}");
        AiTool<Note, String> check = AiTool.of("check", "Checks the case.", Note.class, SafetyTier.READ_ONLY, (in, ctx) -> {
            ran.add("check");
            return checkAnswer;
        });
        fx = new AgentFixture(dir).open(b -> {
            b.tool(step("step_a")).tool(step("step_b")).tool(step("step_c")).tool(check).model("script:test", model);
            config.accept(b);
        });
        return fx.runtime.create(AgentDefinition.builder("ana").id("flow").model("script:test")
                .addTools("step_a", "step_b", "step_c", "check").toolRules(rules).build());
    }

    private Agent agent(String turns, ToolRule... rules) {
        return agent(turns, b -> { }, rules);
    }

    private static String call(String name) {
        return "{\"name\": \"" + name + "\", \"arguments\": {}}";
    }

    private static String turn(String... calls) {
        return "{\"tool_calls\": [" + String.join(", ", calls) + "]}";
    }

    private static final String REPLY = turn("{\"name\": \"send_message\", \"arguments\": {\"message\": \"done\"}}");

    private List<String> offered(int request) {
        return model.requests().get(request).tools().stream().map(ToolDefinition::name).toList();
    }

    private ToolChoice choice(int request) {
        ChatRequest r = model.requests().get(request);
        return r.options().toolChoice();
    }

    private static List<String> statuses(AgentResponse r) {
        return r.toolResults().stream().map(t -> t.toolName() + ":" + t.status()).toList();
    }

    @Test
    void initRuleOffersOnlyTheInitToolFirstAndRefusesAnythingElse() {
        Agent agent = agent("[" + turn(call("step_b")) + ", " + turn("{\"name\": \"step_a\", \"arguments\": {\"note\": \"mine\"}}")
                + ", " + REPLY + "]", new ToolRule.Init("step_a", Map.of("note", "prefilled")), ToolRule.continueAfter("step_a"));

        AgentResponse r = agent.send("go");

        assertThat(offered(0)).containsExactly("step_a");
        assertThat(choice(0)).isEqualTo(ToolChoice.named("step_a"));
        ToolResult refused = r.toolResults().getFirst();
        assertThat(refused.status()).isEqualTo(ToolStatus.REFUSED);
        assertThat(refused.content()).contains("Tool rules do not allow 'step_b' now", "the first tool call must be one of [step_a]",
                "Allowed now: step_a");
        // The prefilled argument wins over the model's, and the stored call shows what ran.
        assertThat(ran).containsExactly("step_a prefilled");
        assertThat(fx.messages(ANA).stream().flatMap(m -> m.toolCalls().stream()).filter(c -> c.name().equals("step_a"))
                .findFirst().orElseThrow().arguments()).contains("prefilled").doesNotContain("mine");
        // After the first successful call, every tool is offered again.
        assertThat(offered(2)).contains("step_a", "step_b", "send_message");
        assertThat(choice(2)).isEqualTo(ToolChoice.auto());
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
    }

    @Test
    void terminalRuleEndsTheTurnEvenWhenTheCallAsksForAHeartbeat() {
        Agent agent = agent("[" + turn("{\"name\": \"step_a\", \"arguments\": {\"request_heartbeat\": true}}") + "]",
                ToolRule.terminal("step_a"));

        AgentResponse r = agent.send("go");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.TERMINAL_TOOL);
        assertThat(r.steps()).isEqualTo(1);
        assertThat(model.remaining()).isZero();
    }

    @Test
    void aFailedTerminalCallDoesNotEndTheTurn() {
        Agent agent = agent("[" + turn("{\"name\": \"step_a\", \"arguments\": {\"note\": 42}}") + ", " + turn(call("step_a")) + "]",
                ToolRule.terminal("step_a"));

        AgentResponse r = agent.send("go");

        assertThat(statuses(r)).containsExactly("step_a:INVALID_ARGUMENTS", "step_a:SUCCESS");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.TERMINAL_TOOL);
    }

    @Test
    void continueRuleTakesAnotherStepWithoutAHeartbeat() {
        Agent agent = agent("[" + turn(call("step_a")) + ", " + turn(call("step_b")) + ", " + REPLY + "]",
                ToolRule.continueAfter("step_a"));

        AgentResponse r = agent.send("go");

        // step_a continues; step_b has no rule and no heartbeat, so the turn ends after it.
        assertThat(statuses(r)).containsExactly("step_a:SUCCESS", "step_b:SUCCESS");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.NO_HEARTBEAT);
        assertThat(model.remaining()).isEqualTo(1);
    }

    @Test
    void childRuleAllowsOnlyTheChildrenRightAfterAndPrefillsThem() {
        Agent agent = agent("[" + turn(call("step_a")) + ", " + turn(call("step_c")) + ", " + turn(call("step_b")) + ", "
                + REPLY + "]", new ToolRule.Child("step_a", List.of("step_b"), Map.of("step_b", Map.of("note", "from rule"))),
                ToolRule.continueAfter("step_a"), ToolRule.continueAfter("step_b"));

        AgentResponse r = agent.send("go");

        assertThat(offered(1)).containsExactly("step_b");
        assertThat(choice(1)).isEqualTo(ToolChoice.named("step_b"));
        assertThat(statuses(r)).containsExactly("step_a:SUCCESS", "step_c:REFUSED", "step_b:SUCCESS", "send_message:SUCCESS");
        assertThat(r.toolResults().get(1).content()).contains("after step_a only [step_b] may run", "Allowed now: step_b");
        assertThat(ran).containsExactly("step_a ", "step_b from rule");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
    }

    @Test
    void parentRuleKeepsTheChildrenUntilTheParentRan() {
        Agent agent = agent("[" + turn(call("step_b")) + ", " + turn(call("step_a")) + ", " + turn(call("step_b")) + ", " + REPLY
                + "]", ToolRule.parent("step_a", "step_b"), ToolRule.continueAfter("step_a"), ToolRule.continueAfter("step_b"));

        AgentResponse r = agent.send("go");

        assertThat(offered(0)).doesNotContain("step_b").contains("step_a", "step_c", "send_message");
        assertThat(statuses(r)).containsExactly("step_b:REFUSED", "step_a:SUCCESS", "step_b:SUCCESS", "send_message:SUCCESS");
        assertThat(r.toolResults().getFirst().content()).contains("[step_b] may run only right after step_a");
        assertThat(offered(2)).containsExactly("step_b");
        assertThat(offered(3)).doesNotContain("step_b");
    }

    @Test
    void conditionalRuleLetsTheOutputChooseTheNextTool() {
        ToolRule rule = new ToolRule.Conditional("check", Optional.of("step_c"), Map.of("True", "step_a", "False", "step_b"), false);
        checkAnswer = "true"; // booleans match without regard to case
        Agent agent = agent("[" + turn(call("check")) + ", " + turn(call("step_b")) + ", " + turn(call("step_a")) + ", " + REPLY
                + "]", rule, ToolRule.continueAfter("check"), ToolRule.continueAfter("step_a"));

        AgentResponse r = agent.send("go");

        assertThat(offered(1)).containsExactly("step_a");
        assertThat(statuses(r)).containsExactly("check:SUCCESS", "step_b:REFUSED", "step_a:SUCCESS", "send_message:SUCCESS");
        assertThat(r.toolResults().get(1).content()).contains("the result of check chose step_a to run next");
    }

    @Test
    void conditionalRuleFallsBackToTheDefaultChild() {
        ToolRule rule = new ToolRule.Conditional("check", Optional.of("step_c"), Map.of("True", "step_a"), false);
        checkAnswer = "{\"message\": \"maybe\"}";
        Agent agent = agent("[" + turn(call("check")) + ", " + turn(call("step_c")) + ", " + REPLY + "]", rule,
                ToolRule.continueAfter("check"), ToolRule.continueAfter("step_c"));

        AgentResponse r = agent.send("go");

        assertThat(offered(1)).containsExactly("step_c");
        assertThat(statuses(r)).containsExactly("check:SUCCESS", "step_c:SUCCESS", "send_message:SUCCESS");
    }

    @Test
    void conditionalRuleThatRequiresAMatchFailsTheCallOtherwise() {
        ToolRule rule = new ToolRule.Conditional("check", Optional.empty(), Map.of("1", "step_a"), true);
        checkAnswer = "2";
        Agent agent = agent("[" + turn(call("check")) + "]", b -> b.maxCorrections(0), rule);

        AgentResponse r = agent.send("go");

        assertThat(statuses(r)).containsExactly("check:TOOL_ERROR");
        assertThat(r.toolResults().getFirst().content()).contains("must be one of [1]", "\"2\"", "Call check again");
        assertThat(fx.messages(ANA).getLast().content()).startsWith(Prompts.ERROR_PREFIX + "Tool rules: the result of 'check'");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.TOO_MANY_ERRORS);
        // Numbers match by value.
        assertThat(ToolRuleSolver.match((ToolRule.Conditional) rule, "1.0")).contains("step_a");
    }

    @Test
    void aCallAfterAConditionalCallInTheSameStepWaitsForItsResult() {
        ToolRule rule = ToolRule.conditional("check", Map.of("True", "step_a"));
        Agent agent = agent("[" + turn(call("check"), call("step_a")) + ", " + turn(call("step_a")) + ", " + REPLY + "]",
                rule, ToolRule.continueAfter("step_a"));

        AgentResponse r = agent.send("go");

        assertThat(statuses(r)).containsExactly("check:SUCCESS", "step_a:REFUSED", "step_a:SUCCESS", "send_message:SUCCESS");
        assertThat(r.toolResults().get(1).content()).contains("its result chooses the tool that may run next");
        // Rules about order ask for one call per step.
        assertThat(model.requests().getFirst().options().parallelToolCalls()).isFalse();
    }

    @Test
    void maxCountRuleRefusesTheCallOverTheLimitWithinOneMessage() {
        Agent agent = agent("[" + turn(call("step_a"), call("step_a")) + ", " + turn(call("step_b")) + ", " + REPLY + ", "
                + turn(call("step_a")) + "]", ToolRule.maxCountPerStep("step_a", 1), ToolRule.continueAfter("step_b"));

        AgentResponse r = agent.send("go");

        assertThat(statuses(r)).containsExactly("step_a:SUCCESS", "step_a:REFUSED", "step_b:SUCCESS", "send_message:SUCCESS");
        assertThat(r.toolResults().get(1).content()).contains("step_a may run at most 1 time(s) per message");
        assertThat(offered(1)).doesNotContain("step_a");
        // The count starts again with the next message.
        AgentResponse next = agent.send("again");
        assertThat(statuses(next)).containsExactly("step_a:SUCCESS");
    }

    @Test
    void requiredBeforeExitKeepsTheTurnGoingUntilTheToolRan() {
        Agent agent = agent("[" + REPLY + ", " + turn("{\"name\": \"step_a\", \"arguments\": {\"request_heartbeat\": true}}") + ", "
                + REPLY + "]", ToolRule.requiredBeforeExit("step_a"));

        AgentResponse r = agent.send("go");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
        assertThat(statuses(r)).containsExactly("send_message:SUCCESS", "step_a:SUCCESS", "send_message:SUCCESS");
        List<ConversationMessage> notes = fx.messages(ANA).stream()
                .filter(m -> m.role() == MessageRole.USER && m.content().startsWith(Agent.RUNTIME_NOTE)).toList();
        assertThat(notes).singleElement().satisfies(m -> assertThat(m.content()).contains("call step_a first"));
        assertThat(r.reply()).contains("done\n\ndone");
    }

    @Test
    void requiredBeforeExitStopsAtTheStepCap() {
        Agent agent = agent("[{\"text\": \"bye\"}, {\"text\": \"bye again\"}]", ToolRule.requiredBeforeExit("step_a"));
        AgentDefinition capped = agent.definition().toBuilder().id("capped").name("capped").maxSteps(2).build();
        AgentResponse r = fx.runtime.create(capped).send("go");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.STEP_CAP);
    }

    @Test
    void requiresApprovalAsksEvenInYoloModeAndADenialRefusesTheCall() {
        List<String> asked = Collections.synchronizedList(new ArrayList<>());
        model = script("{\"turns\": [" + turn(call("step_a")) + ", " + turn(call("step_a")) + ", " + REPLY + "]}");
        fx = new AgentFixture(dir).open(b -> b.tool(step("step_a")).model("script:test", model).approvalHandler(request -> {
            asked.add(request.toolName());
            return CompletableFuture.completedFuture(asked.size() == 1 ? ApprovalDecision.deny("not now")
                    : ApprovalDecision.approve());
        }));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("flow").model("script:test").addTools("step_a")
                .approvalMode(ApprovalMode.YOLO).toolRules(ToolRule.requiresApproval("step_a"), ToolRule.continueAfter("step_a"))
                .build());

        AgentResponse r = agent.send("go");

        assertThat(asked).containsExactly("step_a", "step_a");
        assertThat(statuses(r)).containsExactly("step_a:APPROVAL_DENIED", "step_a:SUCCESS", "send_message:SUCCESS");
        assertThat(ran).containsExactly("step_a ");
    }

    @Test
    void anAgentTellsWhetherATurnMayAskForApproval() {
        fx = new AgentFixture(dir).open(b -> b.tool(step("step_a")).model("script:test", script("{\"turns\": []}")));
        java.util.function.Function<String, AgentDefinition.Builder> plain = id -> AgentDefinition.builder("ana").id(id).model("script:test");
        assertThat(fx.runtime.create(plain.apply("defaults").build()).mayRequestApproval())
                .as("the built-in tools are read-only or pre-approved in AUTO").isFalse();
        assertThat(fx.runtime.create(plain.apply("asks").approvalMode(ApprovalMode.ASK).build()).mayRequestApproval()).isTrue();
        assertThat(fx.runtime.create(plain.apply("ruled").approvalMode(ApprovalMode.YOLO).addTools("step_a")
                .toolRules(ToolRule.requiresApproval("step_a")).build()).mayRequestApproval()).isTrue();
        assertThat(fx.runtime.create(plain.apply("yolo").approvalMode(ApprovalMode.YOLO).addTools("step_a").build())
                .mayRequestApproval()).isFalse();
    }

    @Test
    void aCallToAToolThePolicyDeniesIsThePipelinesToRefuseWithOrWithoutRules() {
        model = script("{\"turns\": [" + turn(call("step_a"), call("step_b")) + "]}");
        fx = new AgentFixture(dir).open(b -> b.tool(step("step_a")).tool(step("step_b")).model("script:test", model));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("flow").model("script:test").addTools("step_a", "step_b")
                .denyTools("step_b").toolRules(ToolRule.init("step_a"), ToolRule.terminal("step_a")).build());

        AgentResponse r = agent.send("go");

        assertThat(statuses(r)).containsExactly("step_a:SUCCESS", "step_b:DENIED_BY_POLICY");
        assertThat(offered(0)).containsExactly("step_a");
    }

    @Test
    void rulesArePersistedAndShownToTheModel() {
        Agent agent = agent("[]", ToolRule.init("step_a"), ToolRule.child("step_a", "step_b"), ToolRule.terminal("step_b"));
        assertThat(agent.compilePrompt().systemText()).contains("<tool_rules>", "Your first tool call must be step_a.",
                "After step_a, call one of: step_b.", "Calling step_b ends your turn.");
        List<ToolRule> rules = agent.definition().toolRules();
        fx.close();
        fx.open(b -> b.tool(step("step_a")).tool(step("step_b")).tool(step("step_c"))
                .tool(AiTool.of("check", "Checks.", Note.class, SafetyTier.READ_ONLY, (in, ctx) -> "")).model("script:test", model));
        assertThat(fx.runtime.agent("ana", "flow").definition().toolRules()).isEqualTo(rules);
        assertThat(fx.runtime.exportAgent("ana", "flow")).contains("\"tool_rules\"", "\"type\" : \"run_first\"",
                "\"type\" : \"constrain_child_tools\"", "\"children\" : [ \"step_b\" ]");
    }

    @Test
    void aRuleAboutAToolTheAgentDoesNotHaveIsRefusedWhenDefined() {
        assertThatThrownBy(() -> AgentDefinition.builder("ana").model("script:x").toolRules(ToolRule.child("block", "nope")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("constrain_child_tools rule about [nope]");
        assertThatThrownBy(() -> ToolRule.maxCountPerStep("block", 0)).hasMessageContaining("at least 1, got 0");
        assertThatThrownBy(() -> ToolRule.conditional("block", Map.of())).hasMessageContaining("at least one output case");
        assertThatThrownBy(() -> new ToolRule.Child("a", List.of("b"), Map.of("c", Map.of())))
                .hasMessageContaining("'c', which is not one of its children [b]");
    }
}
