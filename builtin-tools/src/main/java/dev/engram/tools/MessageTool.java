package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code message}: sends text, and links to files or canvas artefacts, to one of the operator's
 * {@linkplain OutboundChannel outbound channels}. The model picks a channel by name among those the runtime was given;
 * it never gives an address. Distinct from {@code send_message}, which answers in the conversation.
 */
final class MessageTool implements AiTool<MessageTool.Input, MessageTool.Output> {
    static final String NAME = "message";
    /** The longest text sent at once, in characters. */
    static final int MAX_TEXT = 16_000;
    /** The most links attached to one message. */
    static final int MAX_LINKS = 20;
    private static final Logger LOG = LoggerFactory.getLogger(MessageTool.class);

    record Input(@JsonPropertyDescription("The text to send.") String text,
            @JsonPropertyDescription("Links to attach: workspace file paths, canvas paths (/canvas/...) or URLs; optional.")
            Optional<List<String>> links,
            @JsonPropertyDescription("The channel's name; optional when there is only one.") Optional<String> channel) {
    }

    /** What the model is told. */
    record Output(String channel, boolean delivered, String detail) {
    }

    private final Map<String, OutboundChannel> channels = new LinkedHashMap<>();
    private final Clock clock;

    MessageTool(List<OutboundChannel> channels, Clock clock) {
        if (channels.isEmpty()) {
            throw new IllegalArgumentException("the message tool needs at least one outbound channel");
        }
        for (OutboundChannel c : channels) {
            if (this.channels.putIfAbsent(c.name(), c) != null) {
                throw new IllegalArgumentException("two outbound channels are named '" + c.name() + "'; give each its own name");
            }
        }
        this.clock = clock;
    }

    @Override
    public ToolInfo info() {
        return ToolInfo.of(NAME, "Send a message out of this conversation through one of the operator's outbound channels ("
                + String.join(", ", channels.keySet()) + "), with optional links to files or canvas artefacts. Use it to "
                + "notify someone who is not reading the conversation; answer the user with send_message instead. "
                + "Returns {channel, delivered, detail}.", SafetyTier.PRIVILEGED);
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public Output execute(Input in, ToolContext context) {
        String name = in.channel().filter(c -> !c.isBlank()).orElseGet(() -> {
            if (channels.size() > 1) {
                throw new ToolException("There are several channels (" + String.join(", ", channels.keySet())
                        + "); name one with 'channel'.");
            }
            return channels.keySet().iterator().next();
        });
        OutboundChannel channel = channels.get(name);
        if (channel == null) {
            throw new ToolException("There is no channel '" + name + "'; the channels are: " + String.join(", ", channels.keySet()) + ".");
        }
        if (in.text().isBlank()) {
            throw new ToolException("text is empty; write the message.");
        }
        if (in.text().length() > MAX_TEXT) {
            throw new ToolException("text is " + in.text().length() + " characters; send at most " + MAX_TEXT + ".");
        }
        List<String> links = in.links().orElse(List.of());
        if (links.size() > MAX_LINKS) {
            throw new ToolException("attach at most " + MAX_LINKS + " links, not " + links.size() + ".");
        }
        for (String link : links) {
            if (link.isBlank() || link.length() > 2_000 || link.chars().anyMatch(Character::isISOControl)) {
                throw new ToolException("link '" + link + "' is not valid: give a path or URL of at most 2000 characters.");
            }
        }
        OutboundMessage message = new OutboundMessage(context.requireUserId(), context.requireAgentId(), in.text(), links,
                clock.instant());
        SendResult result;
        try {
            result = channel.send(message);
        } catch (RuntimeException e) {
            result = SendResult.failed("the channel failed: " + e.getMessage());
        }
        LOG.info("message: user={} agent={} channel={} delivered={} ({})", message.userId(), message.agentId(), name,
                result.delivered(), result.detail());
        if (!result.delivered()) {
            throw new ToolException("Channel '" + name + "' did not deliver the message: " + result.detail() + ".");
        }
        return new Output(name, true, result.detail());
    }
}
