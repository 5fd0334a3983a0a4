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
    private static final String NOT_YET = "Engram does not implement it yet (issue #30).";

    private UnsupportedOperations() {
    }

    /** Every unsupported operation, grouped by what they have in common. */
    static final List<Unsupported> ALL = List.copyOf(new Table()
            // custom tools
            .group("Engram's MCP servers authenticate with a token or headers given when they are registered, not with "
                    + "OAuth.", "register the server with its auth_token or custom_headers (POST /v1/mcp-servers/).",
                    "GET /v1/tools/mcp/oauth/callback")
            // agents
            .group(NOT_YET, "POST /v1/agents/{agent_id}/messages/stream with \"background\": true, then "
                            + "POST /v1/runs/{run_id}/stream to follow or resume it.",
                    "POST /v1/agents/{agent_id}/messages/async")
            // groups
            .group("Editing one message through its group is not implemented yet (issue #30): a group's messages are "
                            + "its member agents' own.",
                    "PATCH /v1/agents/{agent_id}/messages/{message_id} on the member agent whose message it is.",
                    "PATCH /v1/groups/{group_id}/messages/{message_id}")
            // jobs, runs, steps
            .group(NOT_YET, "GET /v1/jobs/ and GET /v1/jobs/{job_id}.", "GET /v1/jobs/active", "DELETE /v1/jobs/{job_id}",
                    "PATCH /v1/jobs/{job_id}/cancel")
            .group(NOT_YET, "GET /v1/runs/{run_id} for a run, POST /v1/runs/{run_id}/stream for its events, "
                            + "POST /v1/agents/{agent_id}/messages/cancel to cancel one.",
                    "GET /v1/runs/", "GET /v1/runs/active", "DELETE /v1/runs/{run_id}", "GET /v1/runs/{run_id}/messages",
                    "GET /v1/runs/{run_id}/usage", "GET /v1/runs/{run_id}/metrics", "GET /v1/runs/{run_id}/steps",
                    "GET /v1/runs/{run_id}/trace")
            .group(NOT_YET + " Engram does not record steps yet.",
                    "the messages of a turn (GET /v1/agents/{agent_id}/messages) and GET /metrics.",
                    "GET /v1/steps/", "GET /v1/steps/{step_id}", "GET /v1/steps/{step_id}/metrics",
                    "GET /v1/steps/{step_id}/trace", "PATCH /v1/steps/{step_id}/feedback", "GET /v1/steps/{step_id}/messages")
            .group("Engram keeps no provider traces (Letta's telemetry of the raw requests to a model provider).",
                    "the server's log and GET /metrics.", "GET /v1/telemetry/{step_id}")
            // messages, models, misc
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
