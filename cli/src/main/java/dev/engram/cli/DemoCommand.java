package dev.engram.cli;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentType;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentRuntime;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import picocli.CommandLine.Command;

/**
 * {@code engram demo}: a remembering agent, offline, with nothing configured. A scripted model plays
 * the assistant (real tool calls through the real pipeline, a real SQLite file, a real index, the
 * real embedding model); the runtime is then closed and reopened from disk to show what it remembers.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Show a remembering agent: it learns facts, files memories and notes, searches them, "
                + "then is closed, reopened from disk, and remembers.",
                "Runs offline with a scripted model; its data goes to <home>/demo, replaced on every run."})
final class DemoCommand extends BaseCommand {
    static final String USER = "maya";
    static final String AGENT = "assistant";
    static final String SPEC = "script:demo";

    @Override
    int run() throws IOException {
        PrintWriter out = out();
        Path dir = root().homeDirectory().resolve("demo");
        reset(dir);
        out.println("Engram demo: an assistant that remembers (scripted model, data in " + dir + ")");

        try (Engine engine = new Engine(dir)) {
            engine.warmUp();
            TranscriptPrinter transcript = new TranscriptPrinter(out, "assistant");
            AgentRuntime runtime = engine.runtime(b -> b.model(SPEC, script("demo-before.json")).listener(transcript));
            Agent agent = runtime.create(AgentDefinition.builder(USER).id(AGENT).name(AGENT).model(SPEC).agentType(AgentType.MEMGPT_V2_AGENT)
                    .block("human", "What I know about the user", "")
                    .block("persona", "Who I am", "I am a friendly assistant with a long memory.")
                    .build());
            say(transcript, agent, "Hi! I'm Maya. I'm a marine biologist in Lisbon, and I'm allergic to peanuts.");
            say(transcript, agent, "I'm tracking octopus migration off Cascais; my field report is due March 3. Please keep that in mind.");
            say(transcript, agent, "What did I tell you about my research?");
        }

        out.println();
        out.println("--- restart: everything closed; reopening the store and index from disk ---");
        try (Engine engine = new Engine(dir)) {
            engine.warmUp();
            TranscriptPrinter transcript = new TranscriptPrinter(out, "assistant");
            AgentRuntime runtime = engine.runtime(b -> b.model(SPEC, script("demo-after.json")).listener(transcript));
            Agent agent = runtime.agent(USER, AGENT);
            out.println();
            out.println("The reloaded agent's core memory, as compiled into its prompt:");
            String system = agent.compilePrompt().systemText();
            int from = system.indexOf("<memory_blocks>");
            int to = system.indexOf("</memory_blocks>");
            system.substring(from, to + "</memory_blocks>".length()).lines().forEach(l -> out.println("  " + l));
            out.println();
            out.println("Searching its memory for \"octopus migration deadline\":");
            List<SearchHit> hits = runtime.search().search(SearchRequest.builder(agent.scope(), "octopus migration deadline")
                    .domains(SearchDomain.ARCHIVAL, SearchDomain.NOTES).k(3).build());
            for (SearchHit h : hits) {
                out.printf(Locale.ROOT, "  [%s %.3f] %s (%s)%n", h.domain().name().toLowerCase(Locale.ROOT), h.score(),
                        TranscriptPrinter.compact(h.text()), retrievers(h));
            }
            out.println("  (A score adds the hit's BM25 and vector scores, each scaled to 0..1 between the best and the "
                    + "worst candidate of its list and weighted: a relevant hit that ranks last in both lists scores 0. "
                    + "These two are nearly tied in both lists, so their order may differ between runs: the quantised "
                    + "embedding model gives a text slightly different vectors in different batches.)");
            say(transcript, agent, "Do you remember me?");
        }
        out.println();
        out.println("The agent remembered across the restart. Try 'engram chat' with a real model next "
                + "(see 'engram chat --help').");
        return 0;
    }

    /** Which retrievers found a hit, at which rank, with their own scores: {@code bm25 #1 1.166, vector #2 0.868}. */
    static String retrievers(SearchHit h) {
        StringBuilder sb = new StringBuilder();
        h.bm25().ifPresent(c -> sb.append(String.format(Locale.ROOT, "bm25 #%d %.3f", c.rank(), c.score())));
        h.vector().ifPresent(c -> sb.append(sb.isEmpty() ? "" : ", ")
                .append(String.format(Locale.ROOT, "vector #%d %.3f", c.rank(), c.score())));
        return sb.isEmpty() ? "no retriever" : sb.toString();
    }

    private static void say(TranscriptPrinter transcript, Agent agent, String text) {
        transcript.user(text);
        AgentResponse r = agent.send(text);
        if (r.reply().isEmpty()) {
            throw new IllegalStateException("the demo agent stopped without answering (" + r.stopReason() + ")");
        }
    }

    private static ScriptedChatModel script(String resource) {
        try (InputStream in = DemoCommand.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the demo script " + resource + " is missing from the jar");
            }
            return ScriptedChatModel.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes the previous demo's files (only the ones the demo writes). */
    private static void reset(Path dir) throws IOException {
        Files.createDirectories(dir);
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path p : entries.toList()) {
                String name = p.getFileName().toString();
                if (name.startsWith("memory.db") || name.equals("index")) {
                    try (Stream<Path> tree = Files.walk(p)) {
                        for (Path q : tree.sorted(Comparator.reverseOrder()).toList()) {
                            Files.delete(q);
                        }
                    }
                }
            }
        }
    }
}
