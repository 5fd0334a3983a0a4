package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolOutput;
import dev.engram.memory.Acl;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Archive;
import dev.engram.memory.Fusion;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageRole;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Letta's archival and recall tools, with Letta's names and argument shapes, over Engram's archival
 * memory and hybrid search: {@code archival_memory_insert}, {@code archival_memory_search},
 * {@code conversation_search}. Archival writes follow the agent's archival permission, as {@code recall}'s do, and go to
 * the agent's own memory; an archival search also covers the archives attached to the agent, each result naming where
 * it came from ({@code source}).
 */
final class LettaRecallTools {
    static final int MAX_RESULTS = 50;

    private LettaRecallTools() {
    }

    record ArchivalInsert(@JsonPropertyDescription("The information to store. Should be clear and self-contained.") String content,
            @JsonPropertyDescription("Optional list of category tags (e.g., [\"meetings\", \"project-updates\"])")
            Optional<List<String>> tags) {
    }

    /** How tags filter. */
    enum TagMatch {
        @JsonProperty("any") ANY,
        @JsonProperty("all") ALL
    }

    record ArchivalSearch(@JsonPropertyDescription("What you're looking for, described naturally (e.g., \"meetings about API "
            + "redesign\")") String query,
            @JsonPropertyDescription("Filter to memories with these tags. Use tag_match_mode to control matching.")
            Optional<List<String>> tags,
            @JsonPropertyDescription("\"any\" = match memories with ANY of the tags, \"all\" = match only memories with ALL tags")
            Optional<TagMatch> tagMatchMode,
            @JsonPropertyDescription("Maximum number of results to return (default: 10)") Optional<Integer> topK,
            @JsonPropertyDescription("Only memories created on or after this time, ISO-8601 (a date alone means its start).")
            Optional<String> startDatetime,
            @JsonPropertyDescription("Only memories created on or before this time, ISO-8601 (a date alone includes that day).")
            Optional<String> endDatetime) {
    }

    /** A message role to filter by. */
    enum Role {
        @JsonProperty("assistant") ASSISTANT,
        @JsonProperty("user") USER,
        @JsonProperty("tool") TOOL
    }

    record ConversationSearch(@JsonPropertyDescription("String to search for using both text matching and semantic similarity.")
            String query,
            @JsonPropertyDescription("Optional list of message roles to filter by.") Optional<List<Role>> roles,
            @JsonPropertyDescription("Maximum number of results to return. Uses system default if not specified.")
            Optional<Integer> limit,
            @JsonPropertyDescription("Filter results to messages created on or after this date (INCLUSIVE), e.g. \"2024-01-15\" "
                    + "or an ISO-8601 time.") Optional<String> startDate,
            @JsonPropertyDescription("Filter results to messages created on or before this date (INCLUSIVE).")
            Optional<String> endDate) {
    }

    /** One result as the model sees it. */
    record Result(String timestamp, String content, List<String> tags, String role, double score) {
    }

    /** One archival result as the model sees it: {@code source} says whether it is its own memory or an attached archive. */
    record ArchivalResult(String timestamp, String content, List<String> tags, String source, double score) {
    }

    /** What an archival hit's {@code source} says for the agent's own memory. */
    static final String OWN_SOURCE = "your archival memory";

    /** What an archival hit's {@code source} says for an attached archive: its name and id. */
    static String source(Archive archive) {
        return "archive '" + archive.name() + "' (" + archive.id() + ")";
    }

    static List<AiTool<?, ?>> all(MemoryStore store, MemorySearch search, MemoryPermission archivalPermission, Fusion fusion) {
        return List.of(
                LettaMemoryTools.tool("archival_memory_insert", "Add information to long-term archival memory for later search.",
                        SafetyTier.SIDE_EFFECTING, ArchivalInsert.class, (in, ctx) -> {
                    if (Acl.decide(archivalPermission, Acl.Operation.APPEND) != Acl.Decision.ALLOW) {
                        throw new ToolException("Your archival memory has permission "
                                + archivalPermission.name().toLowerCase(Locale.ROOT) + ", which does not allow adding to it. "
                                + "Nothing was stored.");
                    }
                    if (in.content().isBlank()) {
                        throw new ToolException("content is empty; give the information to store.");
                    }
                    ArchivalEntry e = store.archival().insert(ToolScopes.of(ctx),
                            new NewArchivalEntry(Optional.empty(), in.content(), in.tags().orElse(List.of())));
                    return ToolOutput.of("Stored in archival memory (" + e.content().length() + " characters, id " + e.id() + ").",
                            ToolEffect.MEMORY_EDITED);
                }),
                LettaMemoryTools.tool("archival_memory_search", "Search archival memory using semantic similarity and keywords at once.",
                        SafetyTier.READ_ONLY, ArchivalSearch.class, (in, ctx) -> {
                    Scope scope = ToolScopes.of(ctx);
                    int k = count(in.topK(), "top_k");
                    Map<String, Archive> archives = new LinkedHashMap<>();
                    store.archives().attached(scope).forEach(a -> archives.put(a.id(), a));
                    SearchRequest.Builder b = request(scope, in.query(), SearchDomain.ARCHIVAL, fusion)
                            .k(in.tags().isPresent() ? Math.min(SearchRequest.MAX_K, k * 5) : k).archives(archives.keySet());
                    in.startDatetime().ifPresent(t -> b.from(time("start_datetime", t, false)));
                    in.endDatetime().ifPresent(t -> b.until(time("end_datetime", t, true)));
                    Set<String> wanted = new HashSet<>(in.tags().orElse(List.of()));
                    boolean all = in.tagMatchMode().orElse(TagMatch.ANY) == TagMatch.ALL;
                    return search.search(b.build()).stream()
                            .map(h -> {
                                Optional<Archive> from = h.archive().map(archives::get);
                                return store.archival().get(from.map(Archive::scope).orElse(scope), h.id())
                                        .map(e -> new ArchivalResult(e.createdAt().toString(), e.content(), e.tags(),
                                                from.map(LettaRecallTools::source).orElse(OWN_SOURCE), round(h.score())));
                            })
                            .flatMap(Optional::stream)
                            .filter(r -> wanted.isEmpty() || (all ? r.tags().containsAll(wanted) : r.tags().stream().anyMatch(wanted::contains)))
                            .limit(k).toList();
                }),
                LettaMemoryTools.tool("conversation_search", "Search prior conversation history (recall memory) using hybrid search for text "
                        + "similarity, including messages no longer in your context.", SafetyTier.READ_ONLY,
                        ConversationSearch.class, (in, ctx) -> {
                    SearchRequest.Builder b = request(ToolScopes.of(ctx), in.query(), SearchDomain.CONVERSATIONS, fusion)
                            .k(count(in.limit(), "limit"));
                    in.startDate().ifPresent(t -> b.from(time("start_date", t, false)));
                    in.endDate().ifPresent(t -> b.until(time("end_date", t, true)));
                    in.roles().filter(r -> !r.isEmpty()).ifPresent(r -> b.roles(r.stream()
                            .map(x -> MessageRole.valueOf(x.name())).collect(Collectors.toSet())));
                    Scope scope = ToolScopes.of(ctx);
                    return search.search(b.build()).stream().map(h -> new Result(h.timestamp().toString(), h.text(), List.of(),
                            role(store, scope, h), round(h.score()))).toList();
                }));
    }

    private static SearchRequest.Builder request(Scope scope, String query, SearchDomain domain, Fusion fusion) {
        if (query.isBlank()) {
            throw new ToolException("query is empty; say what to look for.");
        }
        return SearchRequest.builder(scope, query).domains(EnumSet.of(domain)).fusion(fusion);
    }

    private static int count(Optional<Integer> value, String field) {
        int n = value.orElse(10);
        if (n < 1 || n > MAX_RESULTS) {
            throw new ToolException(field + " must be between 1 and " + MAX_RESULTS + ", got " + n + ".");
        }
        return n;
    }

    /** An ISO-8601 instant, or a date: its start, or (for an inclusive end) its last moment. */
    static Instant time(String field, String value, boolean endOfDay) {
        try {
            LocalDate day = LocalDate.parse(value.strip());
            return endOfDay ? day.plusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC).minusNanos(1000)
                    : day.atStartOfDay().toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException notADate) {
            return SearchTool.time(field, value.strip());
        }
    }

    private static String role(MemoryStore store, Scope scope, SearchHit h) {
        try {
            return store.messages().get(scope, Long.parseLong(h.id())).map(m -> m.role().name().toLowerCase(Locale.ROOT)).orElse("");
        } catch (NumberFormatException e) {
            return "";
        }
    }

    private static double round(double score) {
        return Math.round(score * 10_000) / 10_000.0;
    }
}
