package dev.engram.cli;

import dev.engram.agents.AgentException;
import dev.engram.agents.AgentNotFoundException;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
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

    /**
     * The scope of an agent given by name (or id), which must exist: the one agent of that name; several agents of the
     * user sharing it are an error listing their ids (give one with {@code --agent ID}).
     */
    static Scope scope(Engine engine, String user, String agent) {
        MemoryStore store = engine.store();
        List<AgentRecord> named = store.agents().findByName(user, agent);
        if (named.size() > 1) {
            throw new AgentException("User '" + user + "' has " + named.size() + " agents named '" + agent + "' (ids "
                    + String.join(", ", named.stream().map(r -> r.scope().agentId()).toList()) + "); name one by its id: --agent ID");
        }
        if (named.size() == 1) {
            return named.getFirst().scope();
        }
        Optional<AgentRecord> byId;
        try {
            byId = store.agents().get(Scope.of(user, agent));
        } catch (IllegalArgumentException e) {
            byId = Optional.empty(); // not an id at all
        }
        return byId.map(AgentRecord::scope).orElseThrow(() -> new AgentNotFoundException("User '" + user
                + "' has no agent named '" + agent + "'; list them with 'engram agent list --user " + user + "'"));
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
