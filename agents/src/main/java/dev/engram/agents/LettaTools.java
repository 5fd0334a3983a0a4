package dev.engram.agents;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Letta's built-in tools and the {@code tool_type} Letta gives each, and the name of Engram's implementation: the
 * one table the agent file's reader and writer, the sleep-time companion and the server's Letta views all use, so
 * that an exported file and the REST view give a tool the same type.
 *
 * <p>Engram's own tools that Letta does not have ({@code block}, {@code recall}, {@code schedule}, ...) are given
 * {@link #BUILTIN}: like Letta's built-ins, the server provides them and they carry no source code; an import
 * resolves them to the runtime's tool of that name.
 */
public final class LettaTools {
    /** Letta's base tools: {@code send_message}, {@code conversation_search}, the archival tools. */
    public static final String CORE = "letta_core";
    /** Letta's memory tools. */
    public static final String MEMORY_CORE = "letta_memory_core";
    /** Letta's sleep-time agent's memory tools. */
    public static final String SLEEPTIME_CORE = "letta_sleeptime_core";
    /** Letta's agent-to-agent messaging tools. */
    public static final String MULTI_AGENT_CORE = "letta_multi_agent_core";
    /** Letta's server-side tools (web search, fetching a page, running code). */
    public static final String BUILTIN = "letta_builtin";
    /** Letta's file tools. */
    public static final String FILES_CORE = "letta_files_core";
    /** A tool with source code of its own. */
    public static final String CUSTOM = "custom";
    /** Letta's file tools, which an agent gets when a folder is attached to it and loses when the last is detached. */
    public static final List<String> FILE_TOOLS = List.of("open_files", "grep_files", "semantic_search_files");

    /** Letta's tool name -> its {@code tool_type}, as Letta's tool manager assigns them. */
    private static final Map<String, String> TYPES = new LinkedHashMap<>();
    /** Letta's name -> Engram's, where they differ. */
    private static final Map<String, String> RENAMED = Map.of("fetch_webpage", "web_fetch");
    static {
        for (String n : List.of("send_message", "conversation_search", "archival_memory_insert", "archival_memory_search")) {
            TYPES.put(n, CORE);
        }
        for (String n : List.of("core_memory_append", "core_memory_replace", "memory", "memory_apply_patch")) {
            TYPES.put(n, MEMORY_CORE);
        }
        for (String n : List.of("memory_replace", "memory_insert", "memory_rethink", "memory_finish_edits")) {
            TYPES.put(n, SLEEPTIME_CORE);
        }
        for (String n : List.of("send_message_to_agent_and_wait_for_reply", "send_message_to_agents_matching_tags",
                "send_message_to_agent_async")) {
            TYPES.put(n, MULTI_AGENT_CORE);
        }
        for (String n : List.of("run_code", "run_code_with_tools", "web_search", "fetch_webpage")) {
            TYPES.put(n, BUILTIN);
        }
        for (String n : FILE_TOOLS) {
            TYPES.put(n, FILES_CORE);
        }
    }

    /** The tools Engram gives an agent's sleep-time companion: Letta's sleep-time set, plus the core and archival tools. */
    public static final List<String> SLEEPTIME_COMPANION = List.of("core_memory_append", "core_memory_replace",
            "memory_insert", "memory_replace", "memory_rethink", "memory_finish_edits", "archival_memory_insert",
            "archival_memory_search", "conversation_search");

    private LettaTools() {
    }

    /** Every built-in tool name of Letta's, in table order. */
    public static List<String> lettaNames() {
        return List.copyOf(TYPES.keySet());
    }

    /** Whether Letta has a built-in tool of that (Letta) name. */
    public static boolean isLettaTool(String lettaName) {
        return TYPES.containsKey(lettaName);
    }

    /** The {@code tool_type} Letta gives its built-in tool {@code lettaName}, if it has one of that name. */
    public static Optional<String> lettaType(String lettaName) {
        return Optional.ofNullable(TYPES.get(lettaName));
    }

    /** The name of Engram's implementation of Letta's tool {@code lettaName} (the same name unless renamed). */
    public static String engramName(String lettaName) {
        return RENAMED.getOrDefault(lettaName, lettaName);
    }

    /**
     * The name of the Engram tool that does what Letta's {@code lettaName} does: {@link #engramName}. (Letta's
     * multi-agent tools are Engram's own of the same names, over the runtime's message router.)
     */
    public static String equivalent(String lettaName) {
        return engramName(lettaName);
    }

    /** The name Letta gives Engram's tool {@code engramName} (the same name unless renamed). */
    public static String lettaName(String engramName) {
        return RENAMED.entrySet().stream().filter(e -> e.getValue().equals(engramName)).map(Map.Entry::getKey)
                .findFirst().orElse(engramName);
    }

    /** The {@code tool_type} of Engram's tool {@code engramName}: Letta's for a tool Letta has, else {@link #BUILTIN}. */
    public static String toolType(String engramName) {
        return TYPES.getOrDefault(lettaName(engramName), BUILTIN);
    }
}
