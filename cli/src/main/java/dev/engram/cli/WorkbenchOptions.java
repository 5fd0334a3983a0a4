package dev.engram.cli;

import dev.engram.agents.AgentRuntime;
import dev.engram.tools.OutboundChannel;
import dev.engram.tools.Vault;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --vault} and {@code --webhook}: the operator's vault (for {@code vault_list} and {@code vault_copyto}) and an
 * outbound webhook (for {@code message}), off by default. They are this runtime's: an agent uses the tools when it
 * names them.
 */
final class WorkbenchOptions {
    @Option(names = "--vault", paramLabel = "DIR", description = "Offer vault_list and vault_copyto over this vault "
            + "(its vault.json names the items and the agents that may use each); needs --workspace, where items are copied.")
    Path vault;

    @Option(names = "--webhook", paramLabel = "URL", description = "Offer the message tool, POSTing each message as JSON "
            + "to this URL (channel 'webhook'; 10 s timeout, 3 attempts on 5xx, no redirects).")
    URI webhook;

    /** The names of the tools these options make available. */
    List<String> toolNames() {
        List<String> names = new ArrayList<>();
        if (vault != null) {
            names.add("vault_list");
            names.add("vault_copyto");
        }
        if (webhook != null) {
            names.add("message");
        }
        return names;
    }

    /**
     * Enables the tools on a runtime.
     *
     * @param workspace the runtime's workspace, which a vault needs; null when it has none
     */
    void apply(AgentRuntime.Builder b, Path workspace) {
        if (vault != null) {
            if (workspace == null) {
                throw new IllegalArgumentException("--vault needs --workspace: vault_copyto copies items into the workspace");
            }
            b.vault(Vault.open(vault));
        }
        if (webhook != null) {
            b.outboundChannel(OutboundChannel.webhook("webhook", webhook));
        }
    }
}
