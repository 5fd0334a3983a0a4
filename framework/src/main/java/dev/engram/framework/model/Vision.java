package dev.engram.framework.model;

import java.util.List;
import java.util.Locale;

/**
 * Which models see images, by the names their providers give them, and the one refusal every adapter gives a request
 * whose images its model cannot take.
 */
final class Vision {
    /** Families of OpenAI-format models that take images: OpenAI's own and the common open-weight vision models. */
    private static final List<String> OPENAI_FORMAT = List.of("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-4-turbo", "gpt-4-vision",
            "gpt-5", "chatgpt-4o", "o3", "o4", "llava", "vision", "-vl", "vl:", "pixtral", "gemma3", "gemma-3",
            "minicpm-v", "moondream", "llama4", "mistral-small3");

    private Vision() {
    }

    /** Whether an OpenAI-format model of this name takes images ({@code o1} does, {@code o1-mini} and {@code o3-mini} do not). */
    static boolean openAi(String model) {
        String m = model.toLowerCase(Locale.ROOT);
        if (m.equals("o1") || m.startsWith("o1-2")) {
            return true;
        }
        if (m.startsWith("o1") || m.startsWith("o3-mini")) {
            return false;
        }
        return OPENAI_FORMAT.stream().anyMatch(m::contains);
    }

    /** Whether an Anthropic model takes images: every Claude since Claude 3. */
    static boolean anthropic(String model) {
        String m = model.toLowerCase(Locale.ROOT);
        return m.startsWith("claude") && !m.startsWith("claude-2") && !m.startsWith("claude-instant");
    }

    /** Whether a Gemini model takes images: every Gemini but the text-only 1.0 Pro. */
    static boolean gemini(String model) {
        String m = model.toLowerCase(Locale.ROOT);
        return m.startsWith("gemini") && !m.equals("gemini-pro") && !m.startsWith("gemini-1.0-pro");
    }

    /**
     * Refuses a request with images that {@code model} cannot take: any image for a model that does not see, an image
     * by address for one that takes only bytes. The message names the model and what to do.
     *
     * @throws IllegalArgumentException saying which image and why
     */
    static void check(ChatModel model, ChatRequest request) {
        for (ChatMessage m : request.messages()) {
            if (m instanceof ChatMessage.User u && !u.images().isEmpty()) {
                if (!model.supportsImages()) {
                    throw new IllegalArgumentException("Model " + model.name() + " cannot see images; send the message "
                            + "without them, or use a model that takes images");
                }
                if (!model.supportsImageUrls() && u.images().stream().anyMatch(i -> i instanceof Image.Url)) {
                    throw new IllegalArgumentException("Model " + model.name() + " takes images as data, not by URL; "
                            + "send the image's bytes (base64) instead of its address");
                }
            }
        }
    }
}
