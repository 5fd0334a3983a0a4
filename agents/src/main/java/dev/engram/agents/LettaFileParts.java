package dev.engram.agents;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The parts of a Letta Agent File that {@link LettaAgentFile} reads and {@link LettaAgentFileWriter} writes besides
 * agents, blocks and tools: per-agent model settings ({@code llm_config} and {@code model_settings}), sleep-time
 * groups, tool rules that name tools the agent does not have, and what the file holds that Engram does not import
 * (listed as {@link DroppedGrant}s, so that the import report names it).
 */
final class LettaFileParts {
    /** The frequency Letta gives a sleep-time group without one. */
    static final int LETTA_SLEEPTIME_FREQUENCY = 5;

    /** A sleep-time group of the file: the main agent's file id, the companions' file ids, and how often they run. */
    record SleeptimeGroup(String mainId, Set<String> companionIds, int frequency) {
    }

    private LettaFileParts() {
    }

    /**
     * The model settings of a file's agent: {@code llm_config}'s fields, then {@code model_settings}' (Letta's newer
     * form), which win where both say something.
     *
     * @throws IllegalArgumentException naming the setting when a value is out of range
     */
    static ModelSettings modelSettings(JsonNode agent) {
        ModelSettings.Builder b = ModelSettings.builder();
        JsonNode llm = agent.path("llm_config");
        if (llm.path("temperature").isNumber()) {
            b.temperature(llm.get("temperature").asDouble());
        }
        if (llm.path("max_tokens").isNumber()) {
            b.maxTokens(llm.get("max_tokens").asInt());
        }
        if (llm.path("enable_reasoner").isBoolean()) {
            b.reasoning(llm.get("enable_reasoner").asBoolean());
        }
        if (llm.path("max_reasoning_tokens").isNumber() && llm.get("max_reasoning_tokens").asInt() > 0) {
            b.reasoningBudgetTokens(llm.get("max_reasoning_tokens").asInt());
        }
        if (llm.hasNonNull("reasoning_effort")) {
            b.effort(llm.get("reasoning_effort").asString());
        }
        if (llm.hasNonNull("effort")) {
            b.effort(llm.get("effort").asString());
        }
        if (llm.path("frequency_penalty").isNumber()) {
            b.frequencyPenalty(llm.get("frequency_penalty").asDouble());
        }
        if (llm.path("parallel_tool_calls").isBoolean()) {
            b.parallelToolCalls(llm.get("parallel_tool_calls").asBoolean());
        }
        if (llm.path("response_format").isObject()) {
            b.responseFormat(llm.get("response_format").toString());
        }
        JsonNode ms = agent.path("model_settings");
        if (ms.path("temperature").isNumber()) {
            b.temperature(ms.get("temperature").asDouble());
        }
        if (ms.path("max_output_tokens").isNumber()) {
            b.maxTokens(ms.get("max_output_tokens").asInt());
        }
        if (ms.path("parallel_tool_calls").isBoolean()) {
            b.parallelToolCalls(ms.get("parallel_tool_calls").asBoolean());
        }
        if (ms.path("frequency_penalty").isNumber()) {
            b.frequencyPenalty(ms.get("frequency_penalty").asDouble());
        }
        if (ms.path("reasoning").hasNonNull("reasoning_effort")) {
            b.effort(ms.path("reasoning").get("reasoning_effort").asString());
        }
        if (ms.hasNonNull("effort")) {
            b.effort(ms.get("effort").asString());
        }
        JsonNode thinking = ms.path("thinking");
        if (thinking.hasNonNull("type")) {
            b.reasoning(thinking.get("type").asString().equals("enabled"));
        }
        if (thinking.path("budget_tokens").isNumber()) {
            b.reasoningBudgetTokens(thinking.get("budget_tokens").asInt());
        }
        JsonNode gemini = ms.path("thinking_config");
        if (gemini.path("thinking_budget").isNumber()) {
            int budget = gemini.get("thinking_budget").asInt();
            b.reasoning(budget != 0);
            if (budget > 0) {
                b.reasoningBudgetTokens(budget);
            }
        }
        JsonNode format = ms.path("response_format").isObject() ? ms.path("response_format") : ms.path("response_schema");
        if (format.isObject()) {
            b.responseFormat(format.toString());
        }
        return b.build();
    }

    /** The efforts Letta's {@code llm_config.reasoning_effort} takes; {@code max} goes to its {@code effort}. */
    private static final List<String> REASONING_EFFORTS = List.of("none", "minimal", "low", "medium", "high", "xhigh");

    /** Writes the settings into {@code llm_config} as Letta names them there. */
    static void writeLlmConfig(ModelSettings s, ObjectNode llm) {
        s.temperature().ifPresent(v -> llm.put("temperature", v));
        s.maxTokens().ifPresent(v -> llm.put("max_tokens", v));
        s.reasoning().ifPresent(v -> llm.put("enable_reasoner", v));
        s.reasoningBudgetTokens().ifPresent(v -> llm.put("max_reasoning_tokens", v));
        s.effort().ifPresent(v -> llm.put(REASONING_EFFORTS.contains(v) ? "reasoning_effort" : "effort", v));
        s.frequencyPenalty().ifPresent(v -> llm.put("frequency_penalty", v));
        s.parallelToolCalls().ifPresent(v -> llm.put("parallel_tool_calls", v));
        s.responseFormat().ifPresent(v -> llm.set("response_format", Heartbeats.JSON.readTree(v)));
    }

    /**
     * Letta's {@code model_settings} for the settings, in the shape of the provider's settings ({@code provider_type}
     * {@code openai}, {@code anthropic} or {@code google_ai}); what that shape has no field for is in {@code llm_config}.
     */
    static ObjectNode modelSettingsJson(ModelSettings s, String provider) {
        ObjectNode o = Heartbeats.JSON.createObjectNode();
        String type = switch (provider) {
            case "anthropic" -> "anthropic";
            case "gemini" -> "google_ai";
            default -> "openai";
        };
        o.put("provider_type", type);
        s.temperature().ifPresent(v -> o.put("temperature", v));
        s.maxTokens().ifPresent(v -> o.put("max_output_tokens", v));
        s.parallelToolCalls().ifPresent(v -> o.put("parallel_tool_calls", v));
        switch (type) {
            case "anthropic" -> {
                s.effort().filter(List.of("low", "medium", "high", "max")::contains).ifPresent(v -> o.put("effort", v));
                if (s.reasoning().isPresent() || s.reasoningBudgetTokens().isPresent()) {
                    ObjectNode thinking = o.putObject("thinking");
                    s.reasoning().ifPresent(on -> thinking.put("type", on ? "enabled" : "disabled"));
                    s.reasoningBudgetTokens().ifPresent(v -> thinking.put("budget_tokens", v));
                }
                s.responseFormat().ifPresent(v -> o.set("response_format", Heartbeats.JSON.readTree(v)));
            }
            case "google_ai" -> {
                if (s.reasoning().isPresent() || s.reasoningBudgetTokens().isPresent()) {
                    boolean on = s.reasoning().orElse(true);
                    o.putObject("thinking_config").put("include_thoughts", on)
                            .put("thinking_budget", on ? s.reasoningBudgetTokens().orElse(1024) : 0);
                }
                s.responseFormat().ifPresent(v -> o.set("response_schema", Heartbeats.JSON.readTree(v)));
            }
            default -> {
                s.effort().filter(REASONING_EFFORTS::contains).ifPresent(v -> o.putObject("reasoning").put("reasoning_effort", v));
                s.responseFormat().ifPresent(v -> o.set("response_format", Heartbeats.JSON.readTree(v)));
            }
        }
        return o;
    }

    /** The file's sleep-time groups (Letta's {@code groups} whose manager is of type {@code sleeptime}). */
    static List<SleeptimeGroup> sleeptimeGroups(JsonNode root, String source) {
        List<SleeptimeGroup> groups = new ArrayList<>();
        for (JsonNode g : root.path("groups")) {
            JsonNode manager = g.path("manager_config");
            if (!manager.path("manager_type").asString("").equals("sleeptime")) {
                continue;
            }
            String main = manager.path("manager_agent_id").asString("");
            Set<String> companions = new LinkedHashSet<>(LettaAgentFile.strings(g.path("agent_ids")));
            companions.remove(main);
            int frequency = manager.path("sleeptime_agent_frequency").isNumber()
                    ? manager.get("sleeptime_agent_frequency").asInt() : LETTA_SLEEPTIME_FREQUENCY;
            if (main.isBlank() || frequency < 1) {
                throw new AgentException("Agent file " + source + ": a sleep-time group (groups[id=" + g.path("id").asString("")
                        + "]) needs a manager_agent_id and a sleeptime_agent_frequency of at least 1. Nothing was stored.");
            }
            groups.add(new SleeptimeGroup(main, Set.copyOf(companions), frequency));
        }
        return groups;
    }

    /**
     * Tool rules without those that name a tool the agent does not have (Letta keeps such a rule when a tool is
     * detached, and exports it); each dropped one is a warning.
     *
     * @param toolNames the names (Letta's and Engram's) of the agent's tools
     */
    static JsonNode attachedRules(JsonNode rules, Set<String> toolNames, String agent, List<String> warnings) {
        if (!rules.isArray()) {
            return rules;
        }
        ArrayNode kept = Heartbeats.JSON.createArrayNode();
        for (JsonNode rule : rules) {
            String tool = rule.path("tool_name").asString("");
            if (!tool.isEmpty() && !toolNames.contains(tool)) {
                warnings.add("agent '" + agent + "': tool rule " + rule.path("type").asString("?") + " on '" + tool
                        + "' was dropped: the agent has no tool of that name");
            } else {
                kept.add(rule);
            }
        }
        return kept;
    }

    /** What an agent of the file has that Engram does not import: environment variables and secrets. */
    static void notImported(JsonNode agent, String name, String at, List<DroppedGrant> dropped) {
        for (String field : List.of("tool_exec_environment_variables", "secrets")) {
            List<String> keys = keys(agent.path(field));
            if (!keys.isEmpty()) {
                dropped.add(new DroppedGrant(name, at + "." + field, String.join(", ", keys),
                        "a file never sets environment variables or secrets; set them in the runtime's configuration"));
            }
        }
    }

    /** What the file as a whole holds that Engram does not import (skills, MCP servers, other groups). */
    static void notImported(JsonNode root, String firstAgent, List<DroppedGrant> dropped) {
        Map<String, String> reasons = new HashMap<>();
        reasons.put("skills", "Engram has no skills");
        reasons.put("mcp_servers", "a file never chooses the MCP servers the runtime connects to; add them to its configuration");
        for (String field : List.of("skills", "mcp_servers")) {
            if (root.path(field).isArray() && !root.path(field).isEmpty()) {
                dropped.add(new DroppedGrant(firstAgent, field, root.path(field).size() + " in the file", reasons.get(field)));
            }
        }
        for (JsonNode g : root.path("groups")) {
            String type = g.path("manager_config").path("manager_type").asString("");
            if (!type.equals("sleeptime")) {
                dropped.add(new DroppedGrant(firstAgent, "groups[id=" + g.path("id").asString("") + "]", "a " + type + " group",
                        "Engram runs only sleep-time groups (as an agent's sleep-time companion)"));
            }
        }
    }

    private static List<String> keys(JsonNode node) {
        List<String> keys = new ArrayList<>();
        if (node.isObject()) {
            keys.addAll(node.propertyNames());
        } else if (node.isArray()) {
            node.forEach(n -> keys.add(n.isObject() ? n.path("key").asString(n.path("name").asString("?")) : n.asString("?")));
        }
        return keys;
    }
}
