package dev.engram.cli;

import dev.engram.agents.AddJob;
import dev.engram.agents.AddOptions;
import dev.engram.agents.AddResult;
import dev.engram.agents.MemoryManager;
import dev.engram.agents.MemoryMessage;
import dev.engram.agents.MemoryScope;
import dev.engram.framework.model.ChatModel;
import dev.engram.memory.JobStatus;
import dev.engram.memory.Scope;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram memory add}: memory extracted from a conversation, as Mem0's {@code add}. */
@Command(name = "memory", mixinStandardHelpOptions = true, description = "Memory written from conversations.",
        subcommands = {MemoryCommands.Add.class})
final class MemoryCommands extends GroupCommand {

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = {"Extract facts from a conversation (a JSON array of {\"role\", \"content\"}) with a model and "
                    + "store them: the user's notes, or the agent's archival entries with --agent. Near-duplicates of what "
                    + "the scope holds are merged. Waits for the job and prints what was stored and merged; exits 1 when "
                    + "extraction failed."})
    static final class Add extends BaseCommand {
        /** Input for tests; standard input otherwise. */
        static InputStream testInput;

        @Option(names = "--user", paramLabel = "ID", defaultValue = "local", description = "The user; default ${DEFAULT-VALUE}.")
        String user;

        @Option(names = "--agent", paramLabel = "NAME", description = "The agent, by name or id: facts become its archival entries.")
        String agent;

        @Option(names = "--model", paramLabel = "SPEC",
                description = "The model that extracts, e.g. openai:gpt-4o-mini; default $ENGRAM_MODEL, else the agent's own.")
        String model;

        @Option(names = "--raw", description = "Store each message's text as it is, without a model.")
        boolean raw;

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "600", description = "How long to wait; default ${DEFAULT-VALUE}.")
        int timeout;

        @Parameters(paramLabel = "FILE", description = "The messages' JSON file, or - for standard input.")
        String file;

        @Override
        int run() throws IOException {
            if (timeout < 1) {
                throw usage("--timeout must be at least 1 second, got " + timeout);
            }
            List<MemoryMessage> messages = MemoryMessage.parseList(read());
            try (Engine engine = root().engine()) {
                MemoryScope target = MemoryScope.user(user);
                String spec = model != null ? model : root().environment().getOrDefault("ENGRAM_MODEL", "");
                if (agent != null) {
                    Scope scope = scope(engine, user, agent);
                    target = MemoryScope.agent(user, scope.agentId());
                    if (spec.isBlank()) {
                        spec = engine.store().agents().get(scope).map(r -> Json.MAPPER.readTree(r.definition())
                                .path("model").asString("")).orElse("");
                    }
                }
                if (!raw && spec.isBlank()) {
                    throw new IllegalStateException("No model is configured to extract facts: pass --model (e.g. "
                            + "openai:gpt-4o-mini), set ENGRAM_MODEL, or store the messages as they are with --raw");
                }
                String chosen = spec;
                Map<String, ChatModel> models = new ConcurrentHashMap<>();
                MemoryManager.Builder builder = MemoryManager.builder(engine.store()).models(scope -> {
                    String s = chosen.isBlank() ? agentModel(engine, scope) : chosen;
                    if (s.isBlank()) {
                        throw new IllegalStateException("no model to extract the facts of an interrupted job with: run "
                                + "'engram memory add' with --model (or ENGRAM_MODEL set) to run it again");
                    }
                    return models.computeIfAbsent(s, x -> ChatModel.of(x, root().environment()));
                });
                if (!raw) {
                    models.put(spec, ChatModel.of(spec, root().environment())); // a bad spec fails here, before a job exists
                }
                try (MemoryManager memory = builder.build()) {
                    AddJob job = memory.add(messages, target, AddOptions.defaults().withRaw(raw));
                    // jobs an earlier run left unfinished, whose process is gone: run again after this one, or failed
                    List<AddJob> abandoned = memory.resumeAbandoned();
                    AddResult result = job.await(Duration.ofSeconds(timeout));
                    for (AddJob earlier : abandoned) {
                        printResumed(earlier.await(Duration.ofSeconds(timeout)));
                    }
                    return print(result);
                }
            }
        }

        /** The model of the scope's agent, if the scope has one and it names a model; blank otherwise. */
        private static String agentModel(Engine engine, MemoryScope scope) {
            return scope.scope().flatMap(s -> engine.store().agents().get(s))
                    .map(r -> Json.MAPPER.readTree(r.definition()).path("model").asString("")).orElse("");
        }

        private void printResumed(AddResult r) {
            out().println("Job " + r.jobId() + ", left unfinished by an earlier run that stopped, " + (r.status() == JobStatus.FAILED
                    ? "failed: " + r.error() : "ran again: " + r.stored().size() + " stored, " + r.merged().size()
                    + " merged, " + r.failed().size() + " failed") + ".");
        }

        private String read() throws IOException {
            if (file.equals("-")) {
                return new String((testInput != null ? testInput : System.in).readAllBytes(), StandardCharsets.UTF_8);
            }
            Path path = Path.of(file);
            if (!Files.isRegularFile(path)) {
                throw usage("no such file: " + file);
            }
            return Files.readString(path);
        }

        private int print(AddResult result) {
            for (AddResult.Fact f : result.facts()) {
                switch (f.outcome()) {
                    case STORED -> out().println("stored  " + f.memoryId().orElse("") + "  " + f.text());
                    case MERGED -> out().println("merged  " + f.memoryId().orElse("") + "  " + f.text() + "  (held: "
                            + f.matched() + ")");
                    case FAILED -> out().println("failed  " + f.text() + "  (" + f.error() + ")");
                }
            }
            out().println("Job " + result.jobId() + " " + result.status().wire() + ": " + result.stored().size() + " stored, "
                    + result.merged().size() + " merged, " + result.failed().size() + " failed.");
            if (result.status() == JobStatus.FAILED) {
                throw new IllegalStateException("extraction failed (job " + result.jobId() + "): " + result.error());
            }
            if (!result.failed().isEmpty()) {
                throw new IllegalStateException(result.failed().size() + " fact(s) could not be stored (job "
                        + result.jobId() + "); see the lines above");
            }
            return 0;
        }
    }
}
