package dev.engram.cli;

import dev.engram.memory.Folder;
import dev.engram.memory.Archive;
import dev.engram.memory.MemoryFilter;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code engram search QUERY}: hybrid search over one agent's memory (its archival search also covering the archives
 * attached to it), or over a user's notes.
 */
@Command(name = "search", mixinStandardHelpOptions = true, description = {"Search an agent's memory (BM25 + vectors).",
        "Notes and folders belong to the user: '--domain notes', '--folder NAME' and '--domain files' (every folder of the "
                + "user's) need no --agent.",
        "Archival results include the archives attached to the agent, each shown as archive:NAME."})
final class SearchCommand extends BaseCommand {
    /** The scope's agent when only the user's notes are searched: notes are matched by user alone. */
    private static final String ANY_AGENT = "notes-only";

    @Parameters(paramLabel = "QUERY")
    String query;

    @Option(names = "--user", paramLabel = "ID", defaultValue = "local", description = "The user whose memory to use; default ${DEFAULT-VALUE}.")
    String user;

    @Option(names = "--agent", paramLabel = "NAME", description = "The agent, by name or id (not needed for --domain notes alone).")
    String agent;

    @Option(names = "--domain", paramLabel = "DOMAIN", description = "archival, conversations, notes, blocks or files "
            + "(repeatable); default all but files.")
    List<SearchDomain> domains = new ArrayList<>();

    @Option(names = "--folder", paramLabel = "NAME", description = "Search the passages of the files in this folder of the "
            + "user's, by name or id (repeatable).")
    List<String> folders = new ArrayList<>();

    @Option(names = "--k", paramLabel = "N", defaultValue = "10", description = "How many hits; default ${DEFAULT-VALUE}.")
    int k;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "hybrid", description = "bm25, vector or hybrid; default ${DEFAULT-VALUE}.")
    SearchMode mode;

    @Option(names = "--filter", paramLabel = "JSON", description = {"Only items matching this filter, in Mem0's shape: "
            + "'{\"AND\": [{\"project\": \"apollo\"}, {\"priority\": {\"gte\": 2}}]}' (AND, OR, NOT; eq, ne, in, nin, "
            + "gt, gte, lt, lte, contains, icontains; metadata fields and created_at)."})
    String filter;

    @Option(names = "--min-score", paramLabel = "X", description = "Only hits scoring at least X (the score printed).")
    Double minScore;

    @Option(names = "--as-of", paramLabel = "TIME", description = "The facts that held at this ISO-8601 time, instead of the current ones.")
    String asOf;

    @Option(names = "--json", description = "Print the hits as JSON.")
    boolean json;

    @Override
    int run() {
        if (query.isBlank()) {
            throw usage("QUERY must not be blank");
        }
        if (k < 1 || k > SearchRequest.MAX_K) {
            throw usage("--k must be between 1 and " + SearchRequest.MAX_K + ", got " + k);
        }
        if (!folders.isEmpty() && !domains.contains(SearchDomain.FILES)) {
            domains.add(SearchDomain.FILES);
        }
        boolean userOnly = !domains.isEmpty() && domains.stream().allMatch(d -> d == SearchDomain.NOTES || d == SearchDomain.FILES);
        if (agent == null && !userOnly) {
            throw usage("Missing --agent: archival memory, conversations and blocks belong to an agent (the user's notes "
                    + "and folders alone, --domain notes or --folder NAME, need none)");
        }
        MemoryFilter parsed;
        try {
            parsed = filter == null ? MemoryFilter.none() : MemoryFilter.parse(filter);
        } catch (IllegalArgumentException e) {
            throw usage("--filter: " + e.getMessage());
        }
        if (minScore != null && (minScore.isNaN() || minScore.isInfinite())) {
            throw usage("--min-score must be a number, got " + minScore);
        }
        Instant at = null;
        if (asOf != null) {
            try {
                at = Instant.parse(asOf);
            } catch (DateTimeParseException e) {
                throw usage("--as-of must be an ISO-8601 time such as 2026-05-01T00:00:00Z, got '" + asOf + "'");
            }
        }
        try (Engine engine = root().engine()) {
            // The embedding model loads only for a search that will run: what the store alone can refuse (the agent, the
            // folders) is checked first, and a refusal comes at once; meanwhile its native libraries load.
            CompletableFuture<Void> checked = new CompletableFuture<>();
            engine.openSearchInBackground(checked);
            Scope s = agent == null ? Scope.of(user, ANY_AGENT) : scope(engine, user, agent);
            // An agent's archival search covers the archives attached to it, each hit naming its archive.
            Map<String, Archive> archives = new LinkedHashMap<>();
            if (agent != null && (domains.isEmpty() || domains.contains(SearchDomain.ARCHIVAL))) {
                engine.store().archives().attached(s).forEach(a -> archives.put(a.id(), a));
            }
            List<Folder> searched = List.of();
            Map<String, String> fileNames = new LinkedHashMap<>();
            if (domains.contains(SearchDomain.FILES)) {
                searched = folders.isEmpty() ? engine.store().folders().list(user)
                        : folders.stream().map(f -> FolderCommands.find(this, engine, user, f)).toList();
                if (searched.isEmpty()) {
                    throw usage("User '" + user + "' has no folders to search; create one with 'engram folder create NAME'");
                }
                for (Folder f : searched) {
                    engine.store().folders().files(user, f.id()).forEach(x -> fileNames.put(x.id(), x.name()));
                }
            }
            checked.complete(null);
            SearchRequest.Builder b = SearchRequest.builder(s, query).k(k).mode(mode).filter(parsed).archives(archives.keySet());
            if (minScore != null) {
                b.minScore(minScore);
            }
            if (at != null) {
                b.asOf(at);
            }
            if (!domains.isEmpty()) {
                b.domains(EnumSet.copyOf(domains));
            }
            if (!searched.isEmpty()) {
                b.folders(searched.stream().map(Folder::id).toList());
            }
            List<SearchHit> hits = engine.search().search(b.build());
            if (json) {
                List<Map<String, Object>> rows = new ArrayList<>();
                for (SearchHit h : hits) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("id", h.id());
                    row.put("domain", h.domain().name().toLowerCase(Locale.ROOT));
                    row.put("score", h.score());
                    row.put("timestamp", h.timestamp().toString());
                    row.put("text", h.text());
                    if (h.domain() == SearchDomain.FILES) {
                        engine.store().folders().passage(user, h.id()).ifPresent(p -> row.put("file", fileNames.get(p.fileId())));
                    }
                    h.archive().map(archives::get).ifPresent(a -> {
                        row.put("archive_id", a.id());
                        row.put("archive_name", a.name());
                    });
                    rows.add(row);
                }
                out().println(Json.pretty(rows));
            } else {
                if (hits.isEmpty()) {
                    out().println("No results.");
                }
                for (SearchHit h : hits) {
                    String file = h.domain() != SearchDomain.FILES ? "" : engine.store().folders().passage(user, h.id())
                            .map(p -> "[" + fileNames.get(p.fileId()) + "] ").orElse("");
                    String where = h.archive().map(archives::get).map(a -> "archive:" + a.name())
                            .orElse(h.domain().name().toLowerCase(Locale.ROOT));
                    out().printf(Locale.ROOT, "%.4f  %-13s %s%s%n", h.score(), where, file, TranscriptPrinter.compact(h.text()));
                }
            }
        }
        return 0;
    }
}
