package dev.engram.server;

import io.helidon.http.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * The operations of Letta's self-hosted API that this server answers with an explained 501 (see {@link Unsupported}),
 * each with why and what to use instead. Remove an entry when its route is added: {@code LettaContractCoverageTest}
 * fails while an operation is both, and {@code UnsupportedOperationsTest} while the server README's list differs
 * (run it with {@code -Dengram.updateReadme=true} to rewrite the list).
 */
final class UnsupportedOperations {

    private UnsupportedOperations() {
    }

    /** Every unsupported operation, grouped by what they have in common. */
    static final List<Unsupported> ALL = List.copyOf(new Table()
            .group("Engram's MCP servers authenticate with a token or headers given when they are registered, not with "
                    + "OAuth.", "register the server with its auth_token or custom_headers (POST /v1/mcp-servers/).",
                    "GET /v1/tools/mcp/oauth/callback")
            // Letta Cloud's services
            .group("It measures Letta Cloud's hosted vector store; Engram's index is a directory of the server.",
                    "GET /metrics (admin key) and the index directory's size.", "GET /v1/embeddings/total_storage_size")
            .group("It sends usage telemetry to Letta Cloud; Engram collects none and sends nothing anywhere.",
                    "GET /v1/health/ for the server's status.",
                    "POST /v1/metadata/telemetry")
            .group("Sandboxes are Letta Cloud's remote machines; Engram runs tools and code in a local sandbox (bubblewrap).",
                    "engram serve --code, which gives agents run_code in the server's sandbox.",
                    "GET /v1/sandboxes", "POST /v1/sandboxes", "POST /v1/sandboxes/{sandboxId}/terminate")
            .group("It is Letta Cloud's key for a device's local storage; Engram keeps everything in its own store.",
                    "an API key of the server's (engram keys create --user ID).", "GET /v1/device-storage-key")
            .list());

    /** Entries in order. */
    private static final class Table {
        private final List<Unsupported> entries = new ArrayList<>();

        /** Entries sharing why and instead; each operation {@code "METHOD /path"}. */
        Table group(String why, String instead, String... operations) {
            for (String op : operations) {
                int space = op.indexOf(' ');
                entries.add(Unsupported.of(Method.create(op.substring(0, space)), op.substring(space + 1), why,
                        Character.toUpperCase(instead.charAt(0)) + instead.substring(1)));
            }
            return this;
        }

        List<Unsupported> list() {
            return entries;
        }
    }
}
