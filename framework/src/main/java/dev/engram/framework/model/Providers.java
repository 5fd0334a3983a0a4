package dev.engram.framework.model;

import java.nio.file.Path;

/** Creates the adapter for a spec. */
final class Providers {
    private Providers() {
    }

    static ChatModel create(ModelSpec spec) {
        return switch (spec.provider()) {
            case OPENAI -> new OpenAiChatModel(spec);
            case ANTHROPIC -> new AnthropicChatModel(spec);
            case GEMINI -> new GeminiChatModel(spec);
            case SCRIPT -> ScriptedChatModel.fromFile(Path.of(spec.model()));
        };
    }
}
