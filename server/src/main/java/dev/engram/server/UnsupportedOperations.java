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
            .group("Engram's tools are Java code registered in the runtime, or an MCP server's; tools defined from "
                            + "Python source over HTTP are not implemented yet (issue #30).",
                    "register a tool with AgentRuntime.Builder.tool(...), or an MCP server (POST /v1/mcp-servers/), "
                            + "and list tools with GET /v1/tools/.",
                    "POST /v1/tools/", "PUT /v1/tools/", "PATCH /v1/tools/{tool_id}", "DELETE /v1/tools/{tool_id}",
                    "POST /v1/tools/run", "POST /v1/agents/{agent_id}/tools/{tool_name}/run")
            .group(NOT_YET, "GET /v1/tools/ and filter or count the list.",
                    "GET /v1/tools/count", "POST /v1/tools/search")
            .group("Engram's MCP servers authenticate with a token or headers given when they are registered, not with "
                    + "OAuth.", "register the server with its auth_token or custom_headers (POST /v1/mcp-servers/).",
                    "GET /v1/tools/mcp/oauth/callback")
            // agents
            .group("Letta's POST form of export, with the export's settings in a body, is not implemented.",
                    "GET /v1/agents/{agent_id}/export.", "POST /v1/agents/{agent_id}/export")
            .group("Folders and their files are not attached to agents yet (issue #30); folders are searched on their own.",
                    "upload to a folder (POST /v1/folders/{folder_id}/upload) and search its passages, or give the agent "
                            + "an archive (PATCH /v1/agents/{agent_id}/archives/attach/{archive_id}).",
                    "PATCH /v1/agents/{agent_id}/sources/attach/{source_id}", "PATCH /v1/agents/{agent_id}/folders/attach/{folder_id}",
                    "PATCH /v1/agents/{agent_id}/sources/detach/{source_id}", "PATCH /v1/agents/{agent_id}/folders/detach/{folder_id}",
                    "PATCH /v1/agents/{agent_id}/files/close-all", "PATCH /v1/agents/{agent_id}/files/{file_id}/open",
                    "PATCH /v1/agents/{agent_id}/files/{file_id}/close", "GET /v1/agents/{agent_id}/sources",
                    "GET /v1/agents/{agent_id}/folders", "GET /v1/agents/{agent_id}/files")
            .group("Letta's deprecated whole-memory view is not implemented.",
                    "GET /v1/agents/{agent_id}/core-memory/blocks.", "GET /v1/agents/{agent_id}/core-memory")
            .group(NOT_YET + " Engram compiles the system prompt from the current blocks at every step.",
                    "nothing: the agent's next step already sees its current blocks; POST "
                            + "/v1/conversations/default/recompile with agent_id shows the prompt.",
                    "POST /v1/agents/{agent_id}/recompile", "POST /v1/agents/{agent_id}/system-prompt/recompile")
            .group(NOT_YET + " An agent's identity is the user it belongs to, chosen when it is created.",
                    "create the agent with identity_ids (POST /v1/agents/).",
                    "PATCH /v1/agents/{agent_id}/identities/attach/{identity_id}",
                    "PATCH /v1/agents/{agent_id}/identities/detach/{identity_id}")
            .group(NOT_YET, "PATCH /v1/agents/{agent_id}/reset-messages, then send the message again.",
                    "PATCH /v1/agents/{agent_id}/messages/{message_id}")
            .group(NOT_YET, "POST /v1/agents/{agent_id}/messages.", "POST /v1/agents/{agent_id}/generate",
                    "POST /v1/chat/completions")
            .group(NOT_YET, "GET /v1/agents/{agent_id}/messages and GET /v1/agents/{agent_id}/archival-memory/search.",
                    "POST /v1/agents/messages/search", "GET /v1/messages/", "POST /v1/messages/search",
                    "POST /v1/passages/search")
            .group(NOT_YET, "POST /v1/agents/{agent_id}/messages/stream with \"background\": true, then "
                            + "POST /v1/runs/{run_id}/stream to follow or resume it.",
                    "POST /v1/agents/{agent_id}/messages/async")
            .group(NOT_YET, "GET /v1/agents/{agent_id}/context, the prompt the next step would send, in parts.",
                    "POST /v1/agents/{agent_id}/messages/preview-raw-payload",
                    "POST /v1/conversations/{conversation_id}/messages/preview-raw-payload")
            .group(NOT_YET, "POST /v1/conversations/default/compact with agent_id, which summarises the older messages.",
                    "POST /v1/agents/{agent_id}/summarize")
            .group(NOT_YET, "GET /v1/agents/ with name, tags and identity_id, and GET /v1/agents/count.",
                    "POST /v1/agents/search", "GET /v1/agents/search/count")
            .group(NOT_YET + " Engram's blocks have no template variables.", "GET /v1/agents/{agent_id}/core-memory/blocks.",
                    "GET /v1/agents/{agent_id}/core-memory/variables")
            // groups
            .group("Multi-agent groups are not implemented yet (issue #30).",
                    "send messages to each agent (POST /v1/agents/{agent_id}/messages) and share blocks between them "
                            + "(PATCH /v1/agents/{agent_id}/core-memory/blocks/attach/{block_id}).",
                    "GET /v1/agents/{agent_id}/groups", "GET /v1/groups/", "POST /v1/groups/", "GET /v1/groups/count",
                    "GET /v1/groups/{group_id}", "PATCH /v1/groups/{group_id}", "DELETE /v1/groups/{group_id}",
                    "PATCH /v1/groups/{group_id}/messages/{message_id}", "GET /v1/groups/{group_id}/messages",
                    "PATCH /v1/groups/{group_id}/reset-messages", "PATCH /v1/groups/{group_id}/blocks/attach/{block_id}",
                    "PATCH /v1/groups/{group_id}/blocks/detach/{block_id}")
            // identities and blocks
            .group(NOT_YET, "GET /v1/identities/ and count the list.", "GET /v1/identities/count")
            .group(NOT_YET + " An identity's properties are not kept.", "keep them in a block of the identity's agents.",
                    "PUT /v1/identities/{identity_id}/properties")
            .group(NOT_YET, "GET /v1/agents/ with identity_id, and GET /v1/blocks/.",
                    "GET /v1/identities/{identity_id}/agents", "GET /v1/identities/{identity_id}/blocks")
            .group(NOT_YET, "GET /v1/blocks/ and count the list, or GET /v1/agents/{agent_id}/core-memory/blocks.",
                    "GET /v1/blocks/count", "GET /v1/blocks/{block_id}/agents")
            .group(NOT_YET + " A block belongs to the user whose key created it.",
                    "create the block with that user's key (POST /v1/blocks/).",
                    "PATCH /v1/blocks/{block_id}/identities/attach/{identity_id}",
                    "PATCH /v1/blocks/{block_id}/identities/detach/{identity_id}")
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
            .group(NOT_YET + " Engram runs each turn at once rather than through a provider's batch API.",
                    "send each agent its message (POST /v1/agents/{agent_id}/messages/stream with \"background\": true).",
                    "GET /v1/messages/batches", "POST /v1/messages/batches", "GET /v1/messages/batches/{batch_id}",
                    "GET /v1/messages/batches/{batch_id}/messages", "PATCH /v1/messages/batches/{batch_id}/cancel")
            .group(NOT_YET, "GET /livez and GET /readyz, Engram's probes.", "GET /v1/ready/")
            .group(NOT_YET, "PATCH /v1/providers/{provider_id} or POST /v1/providers/{provider_id}/check, which lists "
                    + "the provider's models.", "PATCH /v1/providers/{provider_id}/refresh")
            .group(NOT_YET, "GET /v1/agents/ and read each agent's tags.", "GET /v1/tags/")
            .group("Letta's beta voice agent (a voice loop over OpenAI's chat completions) has no counterpart in Engram.",
                    "POST /v1/agents/{agent_id}/messages/stream with stream_tokens.",
                    "POST /v1/voice-beta/{agent_id}/chat/completions")
            .group("It measures Letta Cloud's hosted vector store; Engram's index is a directory of the server.",
                    "GET /metrics (admin key) and the index directory's size.", "GET /v1/embeddings/total_storage_size")
            .group("It sends product feedback and telemetry to Letta Cloud; Engram sends nothing anywhere.",
                    "GET /v1/health/ for the server's status.",
                    "POST /v1/metadata/feedback", "POST /v1/metadata/telemetry", "GET /v1/metadata/status")
            .group("Memory files are Letta Cloud's git-backed memory; Engram's core memory is blocks.",
                    "GET /v1/agents/{agent_id}/core-memory/blocks.",
                    "GET /v1/agents/{agent_id}/memory-files/directory", "GET /v1/agents/{agent_id}/memory-files/history",
                    "GET /v1/agents/{agent_id}/memory-files/content")
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
