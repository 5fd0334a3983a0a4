package dev.engram.agents;

import java.util.Map;

/** What Letta calls model providers, and what Engram calls them: shared by the agent file's reader and writer (tools: {@link LettaTools}). */
final class LettaNames {
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
