package dev.engram.cli;

import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram search QUERY}: hybrid search over one agent's memory. */
@Command(name = "search", mixinStandardHelpOptions = true, description = "Search an agent's memory (BM25 + vectors).")
final class SearchCommand extends BaseCommand {
    @Parameters(paramLabel = "QUERY")
    String query;

    @Mixin
    ScopeOptions scope;

    @Option(names = "--domain", paramLabel = "DOMAIN", description = "archival, conversations, notes or blocks (repeatable); default all.")
    List<SearchDomain> domains = new ArrayList<>();

    @Option(names = "--k", paramLabel = "N", defaultValue = "10", description = "How many hits; default ${DEFAULT-VALUE}.")
    int k;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "hybrid", description = "bm25, vector or hybrid; default ${DEFAULT-VALUE}.")
    SearchMode mode;

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
        try (Engine engine = root().engine()) {
            SearchRequest.Builder b = SearchRequest.builder(scope(engine, scope.user, scope.agent), query).k(k).mode(mode);
            if (!domains.isEmpty()) {
                b.domains(EnumSet.copyOf(domains));
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
                    rows.add(row);
                }
                out().println(Json.pretty(rows));
            } else {
                if (hits.isEmpty()) {
                    out().println("No results.");
                }
                for (SearchHit h : hits) {
                    out().printf(Locale.ROOT, "%.4f  %-13s %s%n", h.score(), h.domain().name().toLowerCase(Locale.ROOT),
                            TranscriptPrinter.compact(h.text()));
                }
            }
        }
        return 0;
    }
}
