package dev.engram.cli;

import picocli.CommandLine.Option;

/** {@code --user} and {@code --agent}, shared by the memory commands. */
final class ScopeOptions {
    @Option(names = "--user", paramLabel = "ID", defaultValue = "local",
            description = "The user whose memory to use; default ${DEFAULT-VALUE}.")
    String user;

    @Option(names = "--agent", paramLabel = "NAME", required = true, description = "The agent, by name or id.")
    String agent;
}
