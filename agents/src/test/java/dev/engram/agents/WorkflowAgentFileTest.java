package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.framework.model.ToolChoice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The real Letta workflow agent of {@code ../shared/data/agent-files/outreach_workflow_agent.af}: its tool
 * rules, read from the file as Letta wrote them, enforced end to end on a scripted model that tries to
 * break each of them. (Read directly here; the Agent File importer is the migration issue's.)
 */
class WorkflowAgentFileTest {
    private static final Path FILE = Path.of(System.getProperty("engram.shared.data", "../../shared/data"),
            "agent-files", "outreach_workflow_agent.af");

    @TempDir
    Path dir;

    private AgentFixture fx;

    record Candidate(String candidate_name) {
    }

    record Email(String candidate_name, String email_subject, String email_content) {
    }

    record Nothing(Optional<String> unused) {
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private static JsonNode agentFile() throws Exception {
        assumeTrue(Files.isRegularFile(FILE), "the shared agent files are absent (" + FILE.toAbsolutePath().normalize()
                + " exists only on the project's machines); skipping");
        JsonNode root = Heartbeats.JSON.readTree(Files.readString(FILE));
        return root.isString() ? Heartbeats.JSON.readTree(root.asString()) : root;
    }

    @Test
    void theWorkflowRulesAreEnforcedEndToEnd() throws Exception {
        JsonNode af = agentFile();
        List<ToolRule> rules = ToolRules.parse(af.path("agents").get(0).path("tool_rules"));
        assertThat(rules).hasSize(5);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "send_email", "arguments": {"candidate_name": "Sam", "email_subject": "Hi", "email_content": "Offer"}}]},
                  {"tool_calls": [{"name": "retrieve_candidate", "arguments": {"candidate_name": "Sam"}}]},
                  {"tool_calls": [{"name": "reject", "arguments": {"candidate_name": "Sam"}}]},
                  {"tool_calls": [{"name": "evaluate_candidate", "arguments": {}}]},
                  {"tool_calls": [{"name": "reject", "arguments": {"candidate_name": "Sam"}}]},
                  {"tool_calls": [{"name": "send_email", "arguments": {"candidate_name": "Sam", "email_subject": "Hi", "email_content": "Offer"}}]}
                ]}""");
        fx = new AgentFixture(dir).open(b -> b.model("script:test", model)
                .tool(AiTool.of("retrieve_candidate", "Retrieve a candidate to evaluate.", Candidate.class, SafetyTier.READ_ONLY,
                        (in, ctx) -> {
                            log.add("retrieve " + in.candidate_name());
                            return "The candidate " + in.candidate_name() + " is a software engineer";
                        }))
                .tool(AiTool.of("evaluate_candidate", "Evaluate the candidate.", Nothing.class, SafetyTier.READ_ONLY,
                        (in, ctx) -> {
                            log.add("evaluate");
                            return true;
                        }))
                .tool(AiTool.of("reject", "Reject the candidate.", Candidate.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    log.add("reject " + in.candidate_name());
                    return "rejected";
                }))
                .tool(AiTool.of("send_email", "Send an email.", Email.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    log.add("email " + in.candidate_name());
                    return "sent";
                })));
        AgentDefinition definition = AgentDefinition.builder("recruiter").id("outreach").model("script:test")
                .systemPrompt(af.path("agents").get(0).path("system").asString())
                .tools("retrieve_candidate", "evaluate_candidate", "reject", "send_email", "send_message")
                .toolRules(rules).build();
        Agent agent = fx.runtime.create(definition);

        AgentResponse r = agent.send("Evaluate Sam.");

        // Only the allowed calls ran, in the workflow's order, and the terminal tool ended the turn.
        assertThat(log).containsExactly("retrieve Sam", "evaluate", "email Sam");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.TERMINAL_TOOL);
        assertThat(r.toolResults()).extracting(t -> t.toolName() + ":" + t.isError()).containsExactly("send_email:true",
                "retrieve_candidate:false", "reject:true", "evaluate_candidate:false", "reject:true", "send_email:false");
        assertThat(r.toolResults().get(0).content()).contains("the first tool call must be one of [retrieve_candidate]");
        assertThat(r.toolResults().get(2).content()).contains("after retrieve_candidate only [evaluate_candidate] may run");
        assertThat(r.toolResults().get(4).content()).contains("the result of evaluate_candidate chose send_email");
        // What the model was offered, and told to call, at each step.
        List<List<String>> offered = model.requests().stream()
                .map(q -> q.tools().stream().map(ToolDefinition::name).toList()).toList();
        assertThat(offered).containsExactly(List.of("retrieve_candidate"), List.of("retrieve_candidate"),
                List.of("evaluate_candidate"), List.of("evaluate_candidate"), List.of("send_email"), List.of("send_email"));
        assertThat(model.requests().get(4).options().toolChoice()).isEqualTo(ToolChoice.named("send_email"));
        assertThat(agent.compilePrompt().systemText()).contains("The result of evaluate_candidate chooses the next tool: "
                + "True -> send_email, False -> reject, otherwise reject.");
    }
}
