package dev.engram.agents;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.memory.Conversation;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.Scope;
import dev.engram.tools.ToolScopes;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The session tools. A session is one of the agent's conversations ({@link Conversation}: its id is the session id of
 * its messages, and it has its own context window over the agent's shared memory), or {@value #OWN_HISTORY}, the
 * agent's own history (Letta's default conversation: every message not in a conversation).
 *
 * <ul>
 *   <li>{@code sessions_list} (read-only): the sessions, the one the call is made in marked.</li>
 *   <li>{@code sessions_send}: a message into another session. It is not run inside the calling turn (the agent is in
 *       that turn and holds its lock: a nested turn of the same agent would wait for itself). It is queued as a
 *       one-time schedule due at once, and the runtime's scheduler delivers it as the agent's next turn in that session,
 *       through {@link Agent#send(String, String)}, after the calling turn ends; the tool returns at once.</li>
 *   <li>{@code sessions_patch}: a conversation's title (its summary, which Letta's clients show as its name) and its
 *       metadata (a JSON object, replaced whole).</li>
 * </ul>
 */
final class SessionTools {
    static final String LIST = "sessions_list";
    static final String SEND = "sessions_send";
    static final String PATCH = "sessions_patch";
    /** The session id of the agent's own history. */
    static final String OWN_HISTORY = "default";
    /** The most sessions listed. */
    static final int MAX_LISTED = 100;

    private SessionTools() {
    }

    record ListInput() {
    }

    record SendInput(@JsonPropertyDescription("The session to write to: a conversation id (conv-...) from sessions_list, "
            + "or default for your own history.") String sessionId,
            @JsonPropertyDescription("The message, written for yourself as you will read it in that session.") String message) {
    }

    record PatchInput(@JsonPropertyDescription("The conversation's id, conv-..., from sessions_list.") String sessionId,
            @JsonPropertyDescription("Its new title: what the conversation is about.") Optional<String> title,
            @JsonPropertyDescription("Its metadata, a JSON object as text such as {\"topic\": \"travel\"}, replacing what it "
                    + "had ({} clears it).") Optional<String> metadata) {
    }

    static List<AiTool<?, ?>> all(MemoryStore store) {
        AiTool<ListInput, String> list = AiTool.of(LIST, "List your sessions: your own history (default) and each "
                + "conversation with its id and title; the one you are in is marked.", ListInput.class, SafetyTier.READ_ONLY,
                (in, ctx) -> guarded(() -> list(store, ToolScopes.of(ctx), ctx.sessionId().orElse(OWN_HISTORY))));
        AiTool<SendInput, String> send = AiTool.of(SEND, "Send a message into another of your sessions, e.g. to carry "
                + "a result over to the conversation that asked for it. It is delivered there as a new turn of yours after "
                + "this turn ends; you do not wait for it here.", SendInput.class, SafetyTier.SIDE_EFFECTING,
                (in, ctx) -> guarded(() -> send(store, ToolScopes.of(ctx), ctx.sessionId().orElse(OWN_HISTORY), in)));
        AiTool<PatchInput, String> patch = AiTool.of(PATCH, "Change the title or the metadata of one of your conversations.",
                PatchInput.class, SafetyTier.SIDE_EFFECTING,
                (in, ctx) -> guarded(() -> patch(store, ToolScopes.of(ctx), in)));
        return List.of(list, send, patch);
    }

    private static String list(MemoryStore store, Scope scope, String current) {
        List<Conversation> conversations = store.conversations().list(scope.userId()).stream()
                .filter(c -> c.agentId().equals(scope.agentId())).toList();
        StringBuilder out = new StringBuilder("Your sessions (" + (conversations.size() + 1) + "):\n");
        out.append("- ").append(OWN_HISTORY).append(": your own history").append(mark(OWN_HISTORY, current)).append('\n');
        conversations.stream().skip(Math.max(0, conversations.size() - MAX_LISTED)).forEach(c -> out.append("- ")
                .append(c.id()).append(": ").append(c.summary().isBlank() ? "(no title)" : "\"" + c.summary() + "\"")
                .append(c.metadata().isEmpty() ? "" : ", metadata " + c.metadata().json())
                .append(", last changed ").append(c.updatedAt().truncatedTo(ChronoUnit.SECONDS))
                .append(mark(c.id(), current)).append('\n'));
        if (conversations.size() > MAX_LISTED) {
            out.append("(").append(conversations.size() - MAX_LISTED).append(" older conversations not shown)\n");
        }
        return out.toString().strip();
    }

    private static String mark(String session, String current) {
        boolean here = session.equals(current) || session.equals(OWN_HISTORY) && !Conversation.isConversationSession(current);
        return here ? " (you are here)" : "";
    }

    private static String send(MemoryStore store, Scope scope, String current, SendInput in) {
        String target = in.sessionId().strip();
        if (in.message().isBlank()) {
            throw new ToolException("message is empty; write what the other session should receive.");
        }
        boolean toOwnHistory = target.equals(OWN_HISTORY);
        if (!toOwnHistory) {
            own(store, scope, target);
        }
        boolean here = target.equals(current) || toOwnHistory && !Conversation.isConversationSession(current);
        if (here) {
            throw new ToolException("You are in session '" + target + "' now; answer here instead of sending to it.");
        }
        Instant due = store.clock().instant().plus(Duration.ofSeconds(1)).truncatedTo(ChronoUnit.SECONDS);
        String text = "[Message from yourself, sent from session " + current + "] " + in.message().strip();
        Schedule s = store.schedules().create(scope, target, text, ScheduleTiming.once(due));
        return "Queued for session " + target + " (" + s.id() + "); it is delivered there as a new turn of yours after "
                + "this turn ends.";
    }

    private static String patch(MemoryStore store, Scope scope, PatchInput in) {
        String id = in.sessionId().strip();
        if (!Conversation.isConversationSession(id)) {
            throw new ToolException("Only conversations (conv-...) have a title; '" + id + "' is not one.");
        }
        if (in.title().isEmpty() && in.metadata().isEmpty()) {
            throw new ToolException("Give a title, metadata or both: there is nothing to change.");
        }
        own(store, scope, id);
        // Both are checked before either is written, so a bad one changes nothing.
        Optional<Metadata> metadata = in.metadata().map(Metadata::parse);
        Optional<String> title = in.title().map(String::strip);
        Conversation c = store.inTransaction(tx -> {
            Conversation changed = tx.conversations().get(scope.userId(), id).orElseThrow();
            if (title.isPresent()) {
                changed = tx.conversations().updateSummary(scope.userId(), id, title.get());
            }
            if (metadata.isPresent()) {
                changed = tx.conversations().updateMetadata(scope.userId(), id, metadata.get());
            }
            return changed;
        });
        return "Conversation " + c.id() + " is now titled " + (c.summary().isBlank() ? "(no title)" : "\"" + c.summary() + "\"")
                + (c.metadata().isEmpty() ? ", with no metadata." : ", with metadata " + c.metadata().json() + ".");
    }

    private static Conversation own(MemoryStore store, Scope scope, String id) {
        Optional<Conversation> c = store.conversations().get(scope.userId(), id).filter(x -> x.agentId().equals(scope.agentId()));
        return c.orElseThrow(() -> new ToolException("You have no session '" + id + "'; sessions_list shows yours."));
    }

    private static String guarded(Supplier<String> body) {
        try {
            return body.get();
        } catch (MemoryException | IllegalArgumentException e) {
            throw new ToolException(e.getMessage());
        } catch (UnsupportedOperationException e) {
            throw new ToolException("Sessions are not available here: " + e.getMessage() + ".");
        }
    }
}
