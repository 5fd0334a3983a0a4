package dev.engram.agents;

import java.util.Map;
import java.util.Set;

/** What Letta calls things, and what Engram calls them: shared by the agent file's reader and writer. */
final class LettaNames {
    /** The names of Letta's built-in tools that Engram implements (under the same name unless renamed below). */
    static final Set<String> LETTA_TOOLS = Set.of("core_memory_append", "core_memory_replace", "memory_insert",
            "memory_replace", "memory_rethink", "memory_finish_edits", "memory", "archival_memory_insert",
            "archival_memory_search", "conversation_search", "send_message", "web_search", "fetch_webpage");
    /** Letta built-ins whose Engram implementation has another name. */
    static final Map<String, String> RENAMED_BUILTINS = Map.of("fetch_webpage", "web_fetch");
    /** Letta's model endpoint types, and the Engram provider of each. */
    static final Map<String, String> PROVIDERS = Map.of("openai", "openai", "anthropic", "anthropic", "google_ai", "gemini",
            "ollama", "ollama");
    /** Each provider's own endpoint, as Letta writes it. */
    static final Map<String, String> STANDARD_ENDPOINTS = Map.of("openai", "https://api.openai.com/v1",
            "anthropic", "https://api.anthropic.com/v1", "google_ai", "https://generativelanguage.googleapis.com",
            "ollama", "http://localhost:11434");
    private LettaNames() {
    }
}
