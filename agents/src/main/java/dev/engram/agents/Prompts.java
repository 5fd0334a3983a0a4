package dev.engram.agents;

import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.Image;
import dev.engram.memory.Archive;
import dev.engram.memory.Block;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageImage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.MessageToolCall;
import java.net.URI;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Compiles an agent's prompt: the system message with its memory, then the in-context messages. */
final class Prompts {
    /**
     * Tool results of failed calls start with this in the prompt and in recall memory, for the model to read (whether a
     * call failed is its stored {@link dev.engram.memory.ToolOutcome}, never this text).
     */
    static final String ERROR_PREFIX = "Error: ";
    static final String SUMMARY_PREFIX = "Summary of the earlier conversation: ";

    private Prompts() {
    }

    static CompiledPrompt compile(Agent agent, MemoryStore store, List<ConversationMessage> messages, MemoryStats stats,
            List<ToolDefinition> tools, int toolTokens, double pressureThreshold) {
        dev.engram.memory.Scope memory = agent.definition().memoryScope();
        // Blocks and attached archives are read again only when the change log showed a change to them.
        List<Block> blocks = agent.parts.storedBlocks(memory, () -> store.blocks().list(memory));
        // Instructions and blocks rarely change between steps: rendered and counted again only when they do.
        PromptParts.Part instructions = agent.parts.instructions(agent.definition());
        PromptParts.Part blockText = agent.parts.blocks(blocks, memory.agentId());
        StringBuilder statsText = new StringBuilder(256);
        renderStats(statsText, stats, agent.definition().timezone(), agent.parts.storedArchives(memory,
                () -> store.archives().attached(memory)));
        String workText = WorkStatePrompt.render(store, memory, tools);
        String fileText = FilePrompt.render(store, memory, agent.definition().fileLimits(), agent.parts);
        StringBuilder system = new StringBuilder(instructions.text().length() + blockText.text().length()
                + statsText.length() + workText.length() + fileText.length() + 512).append(instructions.text())
                .append(blockText.text()).append(fileText).append(workText).append(statsText);
        // The statistics change every step but are short (about 80 tokens): one token per 3 characters
        // over-counts them slightly and saves encoding them each time.
        int systemTokens = instructions.tokens() + blockText.tokens()
                + (workText.isEmpty() ? 0 : agent.tokens.cached(workText))
                + (fileText.isEmpty() ? 0 : agent.tokens.cached(fileText)) + (statsText.length() + 2) / 3;

        List<ChatMessage> chat = new ArrayList<>(messages.size() + 1);
        chat.add(null); // the system message, once its text is complete
        List<String> summaries = new ArrayList<>();
        Map<String, String> callNames = new HashMap<>();
        int messageTokens = 0;
        for (ConversationMessage m : messages) {
            switch (m.role()) {
                case SYSTEM -> summaries.add(m.content());
                case USER -> chat.add(new ChatMessage.User(m.content(), images(m.images())));
                case ASSISTANT -> {
                    List<ToolCall> calls = new ArrayList<>(m.toolCalls().size());
                    for (MessageToolCall c : m.toolCalls()) {
                        calls.add(new ToolCall(c.id(), c.name(), c.arguments()));
                        callNames.put(c.id(), c.name());
                    }
                    chat.add(new ChatMessage.Assistant(m.content(), calls, Reasonings.sent(m.reasoning())));
                }
                case TOOL -> {
                    String callId = m.toolCallId().orElse("");
                    String name = callNames.get(callId);
                    if (name == null) {
                        continue; // its call was evicted: a result without its call would be rejected by providers
                    }
                    chat.add(new ChatMessage.ToolResult(callId, name, m.content(), m.failedToolCall()));
                }
            }
            messageTokens += agent.tokens.count(m);
        }
        if (!summaries.isEmpty()) {
            StringBuilder summary = new StringBuilder("<conversation_summary>\n");
            summaries.forEach(s -> summary.append(s.strip()).append('\n'));
            summary.append("</conversation_summary>\n\n");
            system.append(summary);
            systemTokens += agent.tokens.cached(summary.toString());
        }
        int window = agent.definition().contextWindowTokens();
        int total = systemTokens + messageTokens + toolTokens;
        boolean pressureWarning = total > pressureThreshold * window;
        if (pressureWarning) {
            int percent = (int) Math.round(100.0 * total / window);
            String warning = "<memory_pressure>\nThis conversation fills " + percent + "% of your context window. "
                    + "The oldest messages will soon be summarised and moved to recall memory: save what matters now "
                    + "with the block tool (facts about the user, your plans) or in archival memory with recall.\n"
                    + "</memory_pressure>\n";
            system.append(warning);
            total += agent.tokens.cached(warning); // the same text for each percentage
        }
        chat.set(0, new ChatMessage.System(system.toString().strip()));
        return new CompiledPrompt(chat, tools, total, window, pressureWarning);
    }

    static void renderBlocks(StringBuilder out, List<Block> blocks, String agentId) {
        out.append("<memory_blocks>\nYour core memory, always in this prompt. Edit it with the block tool; ")
                .append("each block shows its size in characters (Unicode code points: an emoji is one) against its "
                        + "limit, and your permission.\n");
        for (Block b : blocks) {
            out.append("<block label=\"").append(b.label()).append("\" chars=\"").append(b.size()).append('/')
                    .append(b.limit()).append("\" permission=\"").append(b.permission().name().toLowerCase(Locale.ROOT))
                    .append('"');
            if (!b.ownerAgentId().equals(agentId)) {
                out.append(" shared_by=\"").append(b.ownerAgentId()).append('"');
            }
            out.append(">\n");
            if (!b.description().isBlank()) {
                out.append("<description>").append(b.description()).append("</description>\n");
            }
            out.append("<value>\n").append(b.value()).append("\n</value>\n</block>\n");
        }
        out.append("</memory_blocks>\n\n");
    }

    /**
     * The statistics, times in the agent's time zone (Letta's {@code timezone}) when it has one, else in UTC, and the
     * names of the archives attached to the agent, which its archival search covers.
     */
    static void renderStats(StringBuilder out, MemoryStats stats, Optional<ZoneId> zone, List<Archive> archives) {
        long earlier = stats.messages() - stats.messagesInContext();
        out.append("<memory_statistics>\n")
                .append("- Recall memory: ").append(stats.messages()).append(" messages, ")
                .append(earlier).append(" of them no longer in this context (find them with search or recall).\n")
                .append("- Archival memory: ").append(stats.archivalEntries()).append(" entries.\n");
        if (!archives.isEmpty()) {
            out.append("- Shared archives your archival search also covers: ").append(String.join(", ", archives.stream()
                    .map(a -> "'" + a.name() + "'").toList())).append(".\n");
        }
        out
                .append("- Notes about this user: ").append(stats.notes()).append(".\n")
                .append("- Last message: ").append(stats.lastMessageAt().map(t -> time(t, zone)).orElse("none yet")).append(".\n")
                .append("</memory_statistics>\n\n");
    }

    /** An instant as the prompt shows it: in UTC ({@code 2026-01-02T03:04:05Z}), or in the zone, named ({@code ...+01:00[Europe/Lisbon]}). */
    static String time(Instant t, Optional<ZoneId> zone) {
        Instant seconds = t.truncatedTo(ChronoUnit.SECONDS);
        return zone.map(z -> seconds.atZone(z).format(DateTimeFormatter.ISO_ZONED_DATE_TIME)).orElse(seconds.toString());
    }

    /** A plain transcript of messages, for the summariser. */
    static String transcript(List<ConversationMessage> messages, int maxToolChars) {
        StringBuilder sb = new StringBuilder();
        for (ConversationMessage m : messages) {
            switch (m.role()) {
                case SYSTEM -> sb.append("[earlier summary] ").append(m.content());
                case USER -> sb.append("user: ").append(m.content());
                case ASSISTANT -> {
                    sb.append("assistant: ").append(m.content());
                    for (MessageToolCall c : m.toolCalls()) {
                        sb.append("\n  called ").append(c.name()).append(' ').append(c.arguments());
                    }
                }
                case TOOL -> {
                    String c = m.content();
                    sb.append("  result: ").append(c.length() > maxToolChars ? c.substring(0, maxToolChars) + " [...]" : c);
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    static boolean isSummary(ConversationMessage m) {
        return m.role() == MessageRole.SYSTEM;
    }

    /** The images of a stored message as the model sees them. */
    static List<Image> images(List<MessageImage> images) {
        List<Image> out = new ArrayList<>(images.size());
        for (MessageImage i : images) {
            out.add(switch (i) {
                case MessageImage.Inline in -> Image.inline(in.mediaType(), in.data());
                case MessageImage.Url url -> Image.url(URI.create(url.url()));
            });
        }
        return out;
    }

    /**
     * {@code messages} as {@code model} can take them: an image it cannot (any, for a model that cannot see; one by
     * address, for a model that takes only data) becomes a line of text saying it was left out. A message is refused
     * images before it is stored; this covers the history of an agent whose model changed since.
     */
    static List<ChatMessage> visibleTo(ChatModel model, List<ChatMessage> messages) {
        boolean sees = model.supportsImages();
        boolean fetches = model.supportsImageUrls();
        List<ChatMessage> out = null;
        for (int i = 0; i < messages.size(); i++) {
            if (!(messages.get(i) instanceof ChatMessage.User u) || u.images().isEmpty()) {
                continue;
            }
            List<Image> kept = u.images().stream().filter(img -> sees && (fetches || img instanceof Image.Inline)).toList();
            if (kept.size() == u.images().size()) {
                continue;
            }
            if (out == null) {
                out = new ArrayList<>(messages);
            }
            String note = "[" + (u.images().size() - kept.size()) + " image(s) left out: model " + model.name()
                    + (sees ? " takes images as data only]" : " cannot see images]");
            out.set(i, new ChatMessage.User(u.text().isEmpty() ? note : u.text() + "\n" + note, kept));
        }
        return out == null ? messages : out;
    }
}
