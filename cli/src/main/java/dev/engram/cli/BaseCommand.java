package dev.engram.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/** What every command shares: the root options and the output streams. */
abstract class BaseCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    EngramCli root() {
        return (EngramCli) spec.root().userObject();
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** Bad usage found after parsing: exit code 2. */
    CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** The scope of an agent given by name (or id), which must exist. */
    static dev.engram.memory.Scope scope(Engine engine, String user, String agent) {
        dev.engram.memory.MemoryStore store = engine.store();
        return store.agents().findByName(user, agent).map(dev.engram.memory.AgentRecord::scope)
                .or(() -> {
                    try {
                        return store.agents().get(dev.engram.memory.Scope.of(user, agent)).map(dev.engram.memory.AgentRecord::scope);
                    } catch (IllegalArgumentException e) {
                        return java.util.Optional.empty();
                    }
                })
                .orElseThrow(() -> new dev.engram.agents.AgentNotFoundException("User '" + user + "' has no agent named '"
                        + agent + "'; list them with 'engram agent list --user " + user + "'"));
    }

    @Override
    public final Integer call() throws Exception {
        try {
            return run();
        } finally {
            out().flush();
        }
    }

    abstract int run() throws Exception;
}
