package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolOutput;
import dev.engram.memory.Fusion;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryFilter;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.Note;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The note tools: notes belong to the user ({@code memory:{user_id}}), so every agent of the user
 * sees them and no other user does.
 */
final class NoteTools {
    private NoteTools() {
    }

    static final String SEARCH = "memory_search";
    static final String SAVE = "memory_save";
    static final String UPDATE = "memory_update";
    static final String DELETE = "memory_delete";
    static final int MAX_TOP_K = 20;

    record SearchInput(@JsonPropertyDescription("What to look for.") String query,
            @JsonPropertyDescription("How many results, 1 to 20; default 5.") Optional<Integer> topK,
            @JsonPropertyDescription("Also search past conversation messages; default false.") Optional<Boolean> includeConversation,
            @JsonPropertyDescription("Only notes whose metadata match this filter, as JSON text, e.g. {\"AND\": [{\"project\": "
                    + "\"apollo\"}, {\"priority\": {\"gte\": 2}}]}: AND, OR, NOT; eq, ne, in, nin, gt, gte, lt, lte, contains, "
                    + "icontains; fields of the metadata and created_at (ISO-8601).") Optional<String> filter,
            @JsonPropertyDescription("Only results scoring at least this.") Optional<Double> minScore) {
    }

    /** One result: note_id is null for a conversation message. */
    record Result(String text, String source, double score, String noteId) {
    }

    record SaveInput(@JsonPropertyDescription("The note, self-contained: it is read later without context.") String content,
            @JsonPropertyDescription("Optional fields to filter searches on later, as a JSON object in text, e.g. "
                    + "{\"project\": \"apollo\", \"priority\": 2}.") Optional<String> metadata) {
    }

    record UpdateInput(@JsonPropertyDescription("The id of the note, e.g. note-0190...; from memory_search or memory_save.") String noteId,
            @JsonPropertyDescription("The note's new full text.") String content,
            @JsonPropertyDescription("The new version's metadata as a JSON object in text; default the note's.")
            Optional<String> metadata) {
    }

    record DeleteInput(@JsonPropertyDescription("The id of the note, e.g. note-0190...; from memory_search or memory_save.") String noteId) {
    }

    static List<AiTool<?, ?>> all(MemoryStore store, MemorySearch search, Fusion fusion) {
        AiTool<SearchInput, List<Result>> searchTool = new Base<>(SEARCH,
                "Search the user's saved notes (and, with include_conversation, past messages) by meaning and keywords. "
                        + "Use it to recall preferences and facts the user shared in any session. Returns a JSON array of "
                        + "{text, source, score, note_id}, best first.",
                SearchInput.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    int k = in.topK().orElse(5);
                    if (k < 1 || k > MAX_TOP_K) {
                        throw new ToolException("top_k must be between 1 and " + MAX_TOP_K + ", got " + k + ".");
                    }
                    if (in.query().isBlank()) {
                        throw new ToolException("query is empty; say what to look for.");
                    }
                    EnumSet<SearchDomain> domains = in.includeConversation().orElse(false)
                            ? EnumSet.of(SearchDomain.NOTES, SearchDomain.CONVERSATIONS) : EnumSet.of(SearchDomain.NOTES);
                    Scope scope = ToolScopes.of(ctx);
                    SearchRequest.Builder request = SearchRequest.builder(scope, in.query()).domains(domains).k(k).fusion(fusion);
                    in.filter().ifPresent(f -> request.filter(MemoryFilter.parse(f)));
                    in.minScore().ifPresent(request::minScore);
                    List<SearchHit> hits = search.search(request.build());
                    return hits.stream().map(h -> new Result(h.text(), h.domain() == SearchDomain.NOTES ? "notes" : "conversations",
                            Math.round(h.score() * 10_000) / 10_000.0, h.domain() == SearchDomain.NOTES ? h.id() : null)).toList();
                });
        AiTool<SaveInput, ToolOutput> save = new Base<>(SAVE,
                "Save a note about the user that should be remembered across sessions and agents: a preference, a fact, "
                        + "a commitment. Returns {note_id, message}; keep the id to update or delete the note later.",
                SaveInput.class, SafetyTier.SIDE_EFFECTING, (in, ctx) -> {
                    if (in.content().isBlank()) {
                        throw new ToolException("content is empty; write the note.");
                    }
                    Note n = store.notes().save(ctx.requireUserId(), in.content(),
                            in.metadata().map(Metadata::parse).orElse(Metadata.empty()));
                    return edited("note_id", n.id(), "message", "Note saved.");
                });
        AiTool<UpdateInput, ToolOutput> update = new Base<>(UPDATE,
                "Change one of the user's notes when the fact it records changed: the new text becomes the current note "
                        + "(with a new id), and the old text is kept as its history. Returns {note_id, message}.",
                UpdateInput.class, SafetyTier.SIDE_EFFECTING, (in, ctx) -> {
                    if (in.content().isBlank()) {
                        throw new ToolException("content is empty; write the note's new text, or use memory_delete.");
                    }
                    String user = ctx.requireUserId();
                    Metadata meta = in.metadata().map(Metadata::parse).orElseGet(() -> store.notes().get(user, in.noteId())
                            .map(Note::metadata).orElse(Metadata.empty()));
                    Note n = store.notes().supersede(user, in.noteId(), in.content(), meta);
                    return edited("note_id", n.id(), "message", "Note updated; it replaces " + in.noteId()
                            + ", whose text is kept in the note's history. Use the new id from now on.");
                });
        AiTool<DeleteInput, ToolOutput> delete = new Base<>(DELETE,
                "Delete one of the user's notes, and its search entries. Returns {note_id, message}.",
                DeleteInput.class, SafetyTier.SIDE_EFFECTING, (in, ctx) -> {
                    if (!store.notes().delete(ctx.requireUserId(), in.noteId())) {
                        throw new ToolException("There is no note '" + in.noteId() + "' for this user; find ids with memory_search.");
                    }
                    return edited("note_id", in.noteId(), "message", "Note deleted.");
                });
        return List.of(searchTool, save, update, delete);
    }

    /** A note tool's answer: its change is a memory edit ({@link ToolEffect#MEMORY_EDITED}). */
    private static ToolOutput edited(String k1, String v1, String k2, String v2) {
        return ToolOutput.of(ordered(k1, v1, k2, v2), ToolEffect.MEMORY_EDITED);
    }

    private static Map<String, String> ordered(String k1, String v1, String k2, String v2) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }

    /** A note tool: memory errors become messages for the model. */
    private record Base<I, O>(ToolInfo info, Class<I> inputType, AiTool.Function<I, O> body) implements AiTool<I, O> {
        Base(String name, String description, Class<I> inputType, SafetyTier tier, AiTool.Function<I, O> body) {
            this(ToolInfo.of(name, description, tier), inputType, body);
        }

        @Override
        public O execute(I input, ToolContext context) throws Exception {
            try {
                return body.apply(input, context);
            } catch (MemoryException | IllegalArgumentException e) {
                throw new ToolException(e.getMessage());
            }
        }
    }
}
