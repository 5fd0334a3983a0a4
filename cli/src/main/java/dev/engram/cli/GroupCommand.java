package dev.engram.cli;

/** A command that only groups subcommands: run alone, it prints its usage. */
abstract class GroupCommand extends BaseCommand {
    @Override
    final int run() {
        spec.commandLine().usage(out());
        return 0;
    }
}
