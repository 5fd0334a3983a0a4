package dev.engram.memory;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A memory search, always within one scope. Filters apply inside both retrievers, so a filtered
 * search returns k hits whenever k matching items exist.
 *
 * @param scope   whose memory; notes are matched by the scope's user
 * @param domains where to look; not empty
 * @param query   the query text; not blank, at most {@link #MAX_QUERY_CHARS} characters
 * @param k       how many hits, 1 to 1000
 * @param mode    BM25, vector or hybrid
 * @param fusion  how hybrid merges its lists
 * @param from    only items at or after this time
 * @param until   only items before this time
 * @param tags    only archival entries with at least one of these tags (when not empty)
 * @param roles   only conversation messages with one of these roles (when not empty); other domains are not affected
 * @param filter  only items whose metadata, time and owner match (see {@link MemoryFilter}); it narrows the scope,
 *                never widens it, and applies inside both retrievers like the other filters
 * @param minScore only hits whose {@linkplain SearchHit#score() score} is at least this (fewer than k hits then)
 * @param asOf    the facts that held at this time (notes and archival entries saved by then and not yet superseded,
 *                other items written by then); when empty, the current facts
 * @param folders the ids of the scope's user's folders whose file passages {@link SearchDomain#FILES} covers; not
 *                empty when the domains include it
 * @param archives the ids of the scope's user's {@linkplain Archive archives} whose passages an archival search covers
 *                beside the scope's own archival memory (those attached to the agent: {@link ArchiveStore#attached});
 *                each hit from one names it ({@link SearchHit#archive()}). Always the scope's user's: an id of another
 *                user's archive finds nothing. Ignored unless {@code domains} holds {@link SearchDomain#ARCHIVAL}
 */
public record SearchRequest(Scope scope, Set<SearchDomain> domains, String query, int k, SearchMode mode, Fusion fusion,
        Optional<Instant> from, Optional<Instant> until, Set<String> tags, Set<MessageRole> roles, MemoryFilter filter,
        Optional<Double> minScore, Optional<Instant> asOf, Set<String> folders, Set<String> archives) {
    public static final int MAX_K = 1_000;
    /** The most archives one search covers beside the agent's own memory. */
    public static final int MAX_ARCHIVES = ArchiveStore.MAX_PER_AGENT;

    public SearchRequest {
        Objects.requireNonNull(scope, "a search needs a scope");
        Objects.requireNonNull(domains, "domains must not be null");
        if (domains.isEmpty()) {
            throw new IllegalArgumentException("a search needs at least one domain");
        }
        domains = Set.copyOf(domains);
        if (query == null || query.isBlank()) {
            throw new IllegalArgumentException("the search query must not be blank");
        }
        if (query.length() > MAX_QUERY_CHARS) {
            throw new IllegalArgumentException("the search query is " + query.length() + " characters long; the most is "
                    + MAX_QUERY_CHARS + ": search for the few words that matter");
        }
        if (k < 1 || k > MAX_K) {
            throw new IllegalArgumentException("k must be between 1 and " + MAX_K + ", got " + k);
        }
        Objects.requireNonNull(mode, "mode must not be null");
        Objects.requireNonNull(fusion, "fusion must not be null");
        Objects.requireNonNull(from, "from must not be null");
        Objects.requireNonNull(until, "until must not be null");
        if (from.isPresent() && until.isPresent() && !from.get().isBefore(until.get())) {
            throw new IllegalArgumentException("the time range is empty: from " + from.get() + " is not before until " + until.get());
        }
        tags = Set.copyOf(tags);
        roles = Set.copyOf(roles);
        Objects.requireNonNull(filter, "filter must not be null: use MemoryFilter.none()");
        Objects.requireNonNull(minScore, "minScore must not be null");
        minScore.ifPresent(m -> {
            if (m.isNaN() || m.isInfinite()) {
                throw new IllegalArgumentException("the minimum score must be a finite number, got " + m);
            }
        });
        Objects.requireNonNull(asOf, "asOf must not be null");
        folders = Set.copyOf(folders);
        if (domains.contains(SearchDomain.FILES) && folders.isEmpty()) {
            throw new IllegalArgumentException("a search of files names the folders it covers (at least one)");
        }
        archives = Set.copyOf(archives);
        if (archives.size() > MAX_ARCHIVES) {
            throw new IllegalArgumentException("a search covers at most " + MAX_ARCHIVES + " archives, got " + archives.size());
        }
        for (String a : archives) {
            if (!Checks.id(a, "archive id").startsWith(Archive.ID_PREFIX)) {
                throw new IllegalArgumentException("'" + a + "' is not an archive id (they start with " + Archive.ID_PREFIX + ")");
            }
        }
    }

    /** A search of the scope's own memory alone (no folders, no archives). */
    public SearchRequest(Scope scope, Set<SearchDomain> domains, String query, int k, SearchMode mode, Fusion fusion,
            Optional<Instant> from, Optional<Instant> until, Set<String> tags, Set<MessageRole> roles, MemoryFilter filter,
            Optional<Double> minScore, Optional<Instant> asOf) {
        this(scope, domains, query, k, mode, fusion, from, until, tags, roles, filter, minScore, asOf, Set.of(), Set.of());
    }

    /** A search without a metadata filter, score threshold or point in time. */
    public SearchRequest(Scope scope, Set<SearchDomain> domains, String query, int k, SearchMode mode, Fusion fusion,
            Optional<Instant> from, Optional<Instant> until, Set<String> tags, Set<MessageRole> roles) {
        this(scope, domains, query, k, mode, fusion, from, until, tags, roles, MemoryFilter.none(), Optional.empty(),
                Optional.empty());
    }

    /** The longest query accepted. */
    public static final int MAX_QUERY_CHARS = 10_000;

    /** The earliest and latest times a search can be limited to. */
    public static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");

    public static Builder builder(Scope scope, String query) {
        return new Builder(scope, query);
    }

    /** Builds a {@link SearchRequest}; defaults: all domains, k = 10, hybrid with RRF. */
    public static final class Builder {
        private final Scope scope;
        private final String query;
        private Set<SearchDomain> domains = SearchDomain.all();
        private int k = 10;
        private SearchMode mode = SearchMode.HYBRID;
        private Fusion fusion = Fusion.defaults();
        private Instant from;
        private Instant until;
        private Set<String> tags = Set.of();
        private Set<MessageRole> roles = Set.of();
        private MemoryFilter filter = MemoryFilter.none();
        private Double minScore;
        private Instant asOf;
        private Set<String> folders = Set.of();
        private Set<String> archives = Set.of();

        private Builder(Scope scope, String query) {
            this.scope = scope;
            this.query = query;
        }

        public Builder domains(Set<SearchDomain> domains) {
            this.domains = domains;
            return this;
        }

        public Builder domains(SearchDomain first, SearchDomain... rest) {
            this.domains = EnumSet.of(first, rest);
            return this;
        }

        public Builder k(int k) {
            this.k = k;
            return this;
        }

        public Builder mode(SearchMode mode) {
            this.mode = mode;
            return this;
        }

        public Builder fusion(Fusion fusion) {
            this.fusion = fusion;
            return this;
        }

        /**
         * Only items from this time on (inclusive).
         *
         * @throws IllegalArgumentException if it lies outside the years 1 to 9999
         */
        public Builder from(Instant from) {
            this.from = checkTime(from, "from");
            return this;
        }

        /**
         * Only items before this time.
         *
         * @throws IllegalArgumentException if it lies outside the years 1 to 9999
         */
        public Builder until(Instant until) {
            this.until = checkTime(until, "until");
            return this;
        }

        private static Instant checkTime(Instant time, String what) {
            Checks.notNull(time, what);
            if (time.isBefore(EARLIEST) || time.isAfter(LATEST)) {
                throw new IllegalArgumentException("search time '" + what + "' must lie between the years 1 and 9999, got "
                        + time);
            }
            return time;
        }

        public Builder tags(Set<String> tags) {
            this.tags = tags;
            return this;
        }

        public Builder roles(Set<MessageRole> roles) {
            this.roles = roles;
            return this;
        }

        /** Only items matching {@code filter}; see {@link MemoryFilter} for the grammar. */
        public Builder filter(MemoryFilter filter) {
            this.filter = Checks.notNull(filter, "filter");
            return this;
        }

        /**
         * Only items matching the filter written as JSON, in Mem0's shape.
         *
         * @throws IllegalArgumentException naming the offending part, if it is not a filter
         */
        public Builder filter(String json) {
            this.filter = MemoryFilter.parse(json);
            return this;
        }

        /** Only hits scoring at least {@code minScore} (the score a hit reports: fused, or the one retriever's). */
        public Builder minScore(double minScore) {
            this.minScore = minScore;
            return this;
        }

        /**
         * The facts that held at {@code time} instead of the current ones.
         *
         * @throws IllegalArgumentException if it lies outside the years 1 to 9999
         */
        public Builder asOf(Instant time) {
            this.asOf = checkTime(time, "as of");
            return this;
        }

        /** The folders (of the scope's user) whose file passages {@link SearchDomain#FILES} covers. */
        public Builder folders(java.util.Collection<String> folderIds) {
            this.folders = Set.copyOf(Checks.noNulls(folderIds, "folder ids"));
            return this;
        }

        /**
         * Also the passages of these archives of the scope's user (by id), in an archival search: pass the agent's
         * {@linkplain ArchiveStore#attached attached} archives so that its search covers them as Letta's does.
         */
        public Builder archives(java.util.Collection<String> archiveIds) {
            this.archives = Set.copyOf(Checks.noNulls(archiveIds, "archive ids"));
            return this;
        }

        public SearchRequest build() {
            return new SearchRequest(scope, domains, query, k, mode, fusion, Optional.ofNullable(from),
                    Optional.ofNullable(until), tags, roles, filter, Optional.ofNullable(minScore), Optional.ofNullable(asOf),
                    folders, archives);
        }
    }

    /** The domains, in a stable order. */
    public List<SearchDomain> orderedDomains() {
        return EnumSet.copyOf(domains).stream().toList();
    }
}
