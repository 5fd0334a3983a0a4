package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.Truncation;
import dev.engram.framework.ToolException;
import dev.engram.memory.Fusion;
import dev.engram.memory.MemoryFilter;
import dev.engram.memory.Archive;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** {@code search}: hybrid search over the agent's archival memory, conversations and the user's notes. */
final class SearchTool implements AiTool<SearchTool.Input, List<SearchTool.Hit>> {
    static final String NAME = "search";
    private static final ToolInfo INFO = new ToolInfo(NAME,
            "Search your memory by meaning and keywords at once: archival memory (facts and documents you stored), "
                + "past conversations (every message, also those no longer in your context), and the user's notes. "
                + "Use it before answering questions about the past. Returns up to `limit` results, best first, each "
                + "with text, domain, score, timestamp and id.",
            SafetyTier.READ_ONLY, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);
    static final int MAX_LIMIT = 50;

    /** Where to look. */
    enum Domain {
        @JsonProperty("archival_memory") ARCHIVAL_MEMORY,
        @JsonProperty("conversations") CONVERSATIONS,
        @JsonProperty("notes") NOTES,
        @JsonProperty("all") ALL
    }

    /** A role filter value. */
    enum Role {
        @JsonProperty("user") USER,
        @JsonProperty("assistant") ASSISTANT,
        @JsonProperty("tool") TOOL,
        @JsonProperty("system") SYSTEM
    }

    record Input(@JsonPropertyDescription("What to look for, in words.") String query,
            @JsonPropertyDescription("Where to look: archival_memory, conversations, notes, or all (default).") Optional<Domain> domain,
            @JsonPropertyDescription("How many results, 1 to 50; default 10.") Optional<Integer> limit,
            @JsonPropertyDescription("Only items from this time on, ISO-8601, e.g. 2026-05-01T00:00:00Z.") Optional<String> startTime,
            @JsonPropertyDescription("Only items before this time, ISO-8601.") Optional<String> endTime,
            @JsonPropertyDescription("Only conversation messages with these roles.") Optional<List<Role>> roles,
            @JsonPropertyDescription("Only items whose metadata match this filter, as JSON text, e.g. {\"AND\": [{\"project\": "
                    + "\"apollo\"}, {\"priority\": {\"gte\": 2}}]}: AND, OR, NOT; eq, ne, in, nin, gt, gte, lt, lte, contains, "
                    + "icontains; fields of the metadata and created_at (ISO-8601).") Optional<String> filter,
            @JsonPropertyDescription("Only results scoring at least this.") Optional<Double> minScore) {
    }

    /** One result, as the model sees it; {@code archive} names the attached archive an archival hit comes from. */
    record Hit(String text, String domain, double score, String timestamp, String id,
            @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<String> archive) {
    }

    private final MemoryStore store;
    private final MemorySearch search;
    private final Fusion fusion;

    SearchTool(MemoryStore store, MemorySearch search, Fusion fusion) {
        this.store = store;
        this.search = search;
        this.fusion = fusion;
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public List<Hit> execute(Input in, ToolContext ctx) {
        Scope scope = ToolScopes.of(ctx);
        int limit = in.limit().orElse(10);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new ToolException("limit must be between 1 and " + MAX_LIMIT + ", got " + limit + ".");
        }
        if (in.query().isBlank()) {
            throw new ToolException("query is empty; say what to look for.");
        }
        Set<SearchDomain> domains = switch (in.domain().orElse(Domain.ALL)) {
            case ARCHIVAL_MEMORY -> EnumSet.of(SearchDomain.ARCHIVAL);
            case CONVERSATIONS -> EnumSet.of(SearchDomain.CONVERSATIONS);
            case NOTES -> EnumSet.of(SearchDomain.NOTES);
            case ALL -> EnumSet.of(SearchDomain.ARCHIVAL, SearchDomain.CONVERSATIONS, SearchDomain.NOTES);
        };
        Map<String, Archive> archives = new LinkedHashMap<>();
        if (domains.contains(SearchDomain.ARCHIVAL)) {
            store.archives().attached(scope).forEach(a -> archives.put(a.id(), a));
        }
        SearchRequest.Builder b = SearchRequest.builder(scope, in.query()).domains(domains).k(limit).fusion(fusion)
                .archives(archives.keySet());
        in.startTime().ifPresent(t -> b.from(time("start_time", t)));
        in.endTime().ifPresent(t -> b.until(time("end_time", t)));
        in.roles().ifPresent(r -> b.roles(r.stream().map(x -> MessageRole.valueOf(x.name())).collect(Collectors.toSet())));
        try {
            in.filter().ifPresent(f -> b.filter(MemoryFilter.parse(f)));
            in.minScore().ifPresent(b::minScore);
            return search.search(b.build()).stream().map(h -> hit(h, archives)).toList();
        } catch (IllegalArgumentException e) {
            throw new ToolException(e.getMessage());
        }
    }

    static Instant time(String field, String value) {
        Instant t;
        try {
            t = Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new ToolException(field + " must be an ISO-8601 instant such as 2026-05-01T00:00:00Z, got \"" + value + "\".");
        }
        if (t.isBefore(SearchRequest.EARLIEST) || t.isAfter(SearchRequest.LATEST)) {
            throw new ToolException(field + " must lie between the years 1 and 9999, got \"" + value + "\".");
        }
        return t;
    }

    static Hit hit(SearchHit h, Map<String, Archive> archives) {
        String domain = h.domain() == SearchDomain.ARCHIVAL ? "archival_memory" : h.domain().key();
        return new Hit(h.text(), domain, Math.round(h.score() * 10_000) / 10_000.0, h.timestamp().toString(), h.id(),
                h.archive().map(archives::get).map(LettaRecallTools::source));
    }
}
