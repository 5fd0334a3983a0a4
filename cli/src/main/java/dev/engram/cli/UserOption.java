package dev.engram.cli;

import picocli.CommandLine.Option;

/** {@code --user}, for commands on a user's memory that take no agent. */
final class UserOption {
    @Option(names = "--user", paramLabel = "ID", defaultValue = "local", description = "The user; default ${DEFAULT-VALUE}.")
    String user;
}
