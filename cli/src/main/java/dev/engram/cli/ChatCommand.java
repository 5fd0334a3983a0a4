package dev.engram.cli;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentType;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentRuntime;
import dev.engram.agents.ToolAccess;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.ApprovalHandler;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ModelSpec;
import dev.engram.memory.MessageImage;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code engram chat}: a REPL with an agent, printing its words as the model streams them (its text,
 * and the message of a {@code send_message} call as it is written). History is kept in {@code <home>/history}; a line ending
 * in a backslash continues on the next line; Ctrl-C cancels the step in progress (at the prompt it
 * clears the line); Ctrl-D or {@code /exit} leaves; {@code /image PATH [text]} shows the agent an image file (for a
 * model that sees). Privileged tool calls ask for approval here.
 */
@Command(name = "chat", mixinStandardHelpOptions = true,
        description = {"Chat with an agent that remembers, on a real model. /image PATH [text] shows it an image "
                + "(png, jpeg, gif, webp) when its model sees; /exit leaves.",
                "Model specs: openai:MODEL (OPENAI_API_KEY), anthropic:MODEL (ANTHROPIC_API_KEY), gemini:MODEL "
                        + "(GEMINI_API_KEY), ollama:MODEL, http://HOST/v1#MODEL (OpenAI-compatible), script:FILE (scripted)."})
final class ChatCommand extends BaseCommand {
    @Option(names = "--agent", paramLabel = "NAME", defaultValue = "assistant",
            description = "The agent to talk to (created on first use); default ${DEFAULT-VALUE}.")
    String agentName;

    @Option(names = "--user", paramLabel = "ID", defaultValue = "local", description = "Your user id; default ${DEFAULT-VALUE}.")
    String user;

    @Option(names = "--model", paramLabel = "SPEC",
            description = "The model, e.g. openai:gpt-4o-mini; default $ENGRAM_MODEL, else the agent's own.")
    String model;

    @picocli.CommandLine.Mixin
    ToolOptions tools;

    @picocli.CommandLine.Mixin
    WorkbenchOptions workbench;

    @picocli.CommandLine.Mixin
    McpOptions mcp;

    @Option(names = "--save", description = "Keep the tools of --workspace, --shell and --web with the agent (without it "
            + "they are for this session only).")
    boolean save;

    /** The tools of an agent the chat creates: the defaults and {@code schedule}, whose reminders the chat delivers. */
    static final java.util.List<String> CHAT_TOOLS = java.util.stream.Stream.concat(AgentDefinition.DEFAULT_TOOLS.stream(),
            java.util.stream.Stream.of("schedule")).toList();

    /** How often the chat looks for due scheduled messages. */
    static final java.time.Duration SCHEDULER_INTERVAL = java.time.Duration.ofSeconds(1);

    /** Input for tests; the console otherwise. */
    static InputStream testInput;

    @Override
    int run() throws IOException {
        String override = model != null ? model : root().environment().get("ENGRAM_MODEL");
        PrintWriter out = out();
        try (Engine engine = root().engine();
                McpOptions servers = mcp;
                Input reader = Input.open(engine.home().resolve("history"), out)) {
            // The model loads while the user types, once the agent and its model have passed what the store and the
            // environment can refuse (so that a refusal comes at once); meanwhile its native libraries load.
            CompletableFuture<Void> checked = new CompletableFuture<>();
            engine.warmUpOnce(checked);
            TranscriptPrinter transcript = new TranscriptPrinter(out, agentName, reader.interactive());
            List<String> mcpTools = new ArrayList<>();
            AgentRuntime runtime = engine.runtime(b -> {
                mcpTools.addAll(servers.apply(b));
                tools.apply(b, root().environment());
                workbench.apply(b, tools.workspace);
                b.listener(transcript).approvalHandler(approvals(reader, out)).permissionBroker(consent(reader, out))
                        .modelResolver(spec -> ChatModel.of(override != null && !override.isBlank() ? override : spec,
                                root().environment()));
            });
            Optional<Agent> existing = runtime.findByName(user, agentName);
            if (existing.isEmpty() && (override == null || override.isBlank())) {
                throw new IllegalStateException("No model is configured: pass --model (e.g. openai:gpt-4o-mini with "
                        + "OPENAI_API_KEY set, anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash, ollama:llama3.2 or "
                        + "script:FILE) or set ENGRAM_MODEL; to see Engram without a model, run 'engram demo'");
            }
            checkModel(override != null && !override.isBlank() ? override : existing.get().definition().model());
            checked.complete(null);
            Agent created = existing.orElseGet(() -> runtime.create(AgentDefinition.builder(user).name(agentName)
                    .model(override).agentType(AgentType.MEMGPT_V2_AGENT)
                    .tools(java.util.stream.Stream.concat(CHAT_TOOLS.stream(), workbench.toolNames().stream()).toList()).block("human", "What I know about the user", "")
                    .block("persona", "Who I am", "I am a helpful assistant with a long memory.")
                    .toolAccess(tools.any() && save ? tools.access() : ToolAccess.NONE).build()));
            if (existing.isEmpty()) {
                out.println("Created agent '" + agentName + "' for user '" + user + "' on " + override + ".");
                if (!workbench.toolNames().isEmpty()) {
                    out.println("It uses " + String.join(", ", workbench.toolNames()) + ": chat with it again with the same "
                            + "--vault/--webhook.");
                }
            }
            if (tools.any() && !created.definition().toolAccess().equals(tools.access())) {
                String names = String.join(", ", tools.access().toolNames());
                if (save) {
                    runtime.changeToolAccess(user, created.id(), tools.access());
                    out.println("Agent '" + agentName + "' now has " + names + " (kept with the agent).");
                } else {
                    // The flags are this session's: the stored agent keeps the tools it had.
                    runtime.useToolAccess(user, created.id(), tools.access());
                    out.println("Agent '" + agentName + "' has " + names + " for this session (--save keeps them with "
                            + "the agent).");
                }
            }
            List<String> named = created.definition().tools();
            List<String> unnamed = workbench.toolNames().stream().filter(t -> !named.contains(t)).toList();
            if (!unnamed.isEmpty()) {
                out.println("Agent '" + agentName + "' does not use " + String.join(", ", unnamed) + " (an agent the chat "
                        + "creates with --vault or --webhook does).");
            }
            if (tools.code && !created.definition().tools().contains(ToolOptions.CODE_MODE)) {
                List<String> withCode = new ArrayList<>(created.definition().tools());
                withCode.add(ToolOptions.CODE_MODE);
                created = runtime.changeTools(user, created.id(), withCode);
                out.println("Agent '" + agentName + "' now has " + ToolOptions.CODE_MODE + " (kept with the agent; it runs "
                        + "only where code execution is on, --code).");
            }
            List<String> before = created.definition().tools();
            if (!mcpTools.isEmpty()) {
                // The MCP servers are this session's: their tools join the agent now and leave it when the chat ends.
                List<String> withMcp = new ArrayList<>(before);
                mcpTools.stream().filter(t -> !withMcp.contains(t)).forEach(withMcp::add);
                created = runtime.changeTools(user, created.id(), withMcp);
                out.println("Agent '" + agentName + "' has " + String.join(", ", mcpTools) + " for this session (MCP).");
            }
            Agent agent = created;
            if (!agent.definition().toolAccess().shell().isEmpty()) {
                out.println("Shell sandbox: " + dev.engram.tools.ShellOptions.sandboxDescription(root().unsafeHostShell) + ".");
            }
            out.println("Chatting with '" + agent.name() + "'. Ctrl-C cancels a step, Ctrl-D or /exit leaves, "
                    + "end a line with \\ to continue it.");
            out.flush();
            reader.onInterrupt(agent::cancel);
            // Reminders the user's agents set fire while the chat runs (late ones, missed while it did not, first).
            runtime.scheduler().onDelivery(d -> reader.printAbove(TranscriptPrinter.scheduled(d,
                    d.schedule().scope().equals(agent.scope()) ? agent.name() : d.schedule().scope().agentId())));
            runtime.scheduler().start(SCHEDULER_INTERVAL, scope -> scope.userId().equals(user));
            try {
                loop(reader, agent, transcript, out);
            } finally {
                if (!mcpTools.isEmpty()) {
                    List<String> kept = new ArrayList<>(runtime.current(user, agent.id()).definition().tools());
                    kept.removeAll(mcpTools.stream().filter(t -> !before.contains(t)).toList());
                    runtime.changeTools(user, agent.id(), kept);
                }
            }
        }
        return 0;
    }

    /**
     * Fails before the prompt opens when the model cannot be called: a provider without its key, a spec that does not
     * parse. The message names what to set.
     */
    private void checkModel(String spec) {
        try {
            ModelSpec.parse(spec, root().environment());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("Cannot chat on " + spec + ": " + e.getMessage(), e);
        }
    }

    private void loop(Input reader, Agent agent, TranscriptPrinter transcript, PrintWriter out) {
        while (true) {
            String message;
            try {
                message = readMessage(reader);
            } catch (EndOfFileException e) {
                return;
            }
            if (message == null) {
                continue;
            }
            if (!reader.interactive()) {
                out.println("you > " + message);
            }
            if (message.equals("/exit") || message.equals("/quit")) {
                return;
            }
            AgentResponse r;
            if (message.startsWith("/image ")) {
                try {
                    r = image(agent, message.substring("/image ".length()).strip(), transcript);
                } catch (IllegalArgumentException | IOException e) {
                    out.println("(" + e.getMessage() + ")");
                    out.flush();
                    continue;
                }
            } else {
                r = agent.stream(message, transcript);
            }
            if (r.reply().isEmpty()) {
                out.println("(" + agent.name() + " stopped without a reply: " + r.stopReason().name().toLowerCase(Locale.ROOT) + ")");
            }
            out.flush();
        }
    }

    /**
     * {@code /image PATH [text]}: the text and the image file (png, jpeg, gif or webp, by its extension), for a model
     * that sees; an unreadable file, another type or a model that cannot see is an {@link IllegalArgumentException} or
     * {@link IOException} saying so, and nothing is sent or stored.
     */
    private static AgentResponse image(Agent agent, String args, TranscriptPrinter transcript) throws IOException {
        int space = args.indexOf(' ');
        Path file = Path.of(space < 0 ? args : args.substring(0, space));
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        String type = name.endsWith(".png") ? "image/png" : name.endsWith(".jpg") || name.endsWith(".jpeg") ? "image/jpeg"
                : name.endsWith(".gif") ? "image/gif" : name.endsWith(".webp") ? "image/webp" : "";
        if (type.isEmpty()) {
            throw new IllegalArgumentException("/image takes a .png, .jpg, .gif or .webp file, not '" + file + "'");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no image file " + file);
        }
        return agent.stream("default", space < 0 ? "" : args.substring(space + 1).strip(),
                List.of(MessageImage.inline(type, Files.readAllBytes(file))), transcript);
    }

    /** One message, possibly over several lines; null for an empty or interrupted line. */
    private static String readMessage(Input reader) {
        StringBuilder sb = new StringBuilder();
        String prompt = "you > ";
        while (true) {
            String line;
            try {
                line = reader.readLine(prompt);
            } catch (UserInterruptException e) {
                return null;
            }
            if (line == null) {
                throw new EndOfFileException();
            }
            if (line.endsWith("\\")) {
                sb.append(line, 0, line.length() - 1).append('\n');
                prompt = "    | ";
                continue;
            }
            sb.append(line);
            String text = sb.toString().strip();
            return text.isEmpty() ? null : text;
        }
    }

    private static ApprovalHandler approvals(Input reader, PrintWriter out) {
        return request -> {
            out.println("  ? " + request.toolName() + " (" + request.tier().name().toLowerCase(Locale.ROOT) + ") wants to run: "
                    + TranscriptPrinter.compact(request.preview().orElse(request.arguments())));
            out.flush();
            String answer;
            try {
                String line = reader.readLine("  allow? [y]es / [n]o / [a]lways this session: ");
                answer = line == null ? "n" : line.strip().toLowerCase(Locale.ROOT);
            } catch (UserInterruptException | EndOfFileException e) {
                answer = "n";
            }
            ApprovalDecision decision = switch (answer) {
                case "y", "yes" -> ApprovalDecision.approve();
                case "a", "always" -> ApprovalDecision.approveForSession();
                default -> ApprovalDecision.deny("the user said no");
            };
            return CompletableFuture.completedFuture(decision);
        };
    }

    /** Partner and human blocks: the user at this terminal consents (or not) to each write. */
    private static dev.engram.tools.PermissionBroker consent(Input reader, PrintWriter out) {
        return request -> {
            out.println("  ? " + request.agentId() + " wants to " + request.operation().name().toLowerCase(Locale.ROOT)
                    + " block '" + request.label() + "' (" + request.permission().name().toLowerCase(Locale.ROOT) + "): "
                    + TranscriptPrinter.compact(request.change()));
            out.flush();
            String line;
            try {
                line = reader.readLine("  allow? [y]es / [n]o: ");
            } catch (UserInterruptException | EndOfFileException e) {
                line = null;
            }
            return CompletableFuture.completedFuture(line != null && line.strip().toLowerCase(Locale.ROOT).startsWith("y"));
        };
    }

    /** Where lines come from: JLine on a console (history, Ctrl-C), plain lines when input is piped. */
    abstract static class Input implements AutoCloseable {
        abstract String readLine(String prompt);

        abstract boolean interactive();

        void onInterrupt(Runnable action) {
        }

        /** Prints text (whole lines) while a prompt may be waiting for input. */
        abstract void printAbove(String text);

        @Override
        public void close() throws IOException {
        }

        static Input open(java.nio.file.Path history, PrintWriter out) throws IOException {
            if (testInput == null && System.console() != null) {
                Terminal terminal = TerminalBuilder.builder().system(true).build();
                LineReader reader = LineReaderBuilder.builder().terminal(terminal)
                        .variable(LineReader.HISTORY_FILE, history).build();
                return new Input() {
                    @Override
                    String readLine(String prompt) {
                        return reader.readLine(prompt);
                    }

                    @Override
                    boolean interactive() {
                        return true;
                    }

                    @Override
                    void onInterrupt(Runnable action) {
                        terminal.handle(Terminal.Signal.INT, s -> action.run());
                    }

                    @Override
                    void printAbove(String text) {
                        reader.printAbove(text.stripTrailing());
                    }

                    @Override
                    public void close() throws IOException {
                        terminal.close();
                    }
                };
            }
            java.io.BufferedReader lines = new java.io.BufferedReader(new java.io.InputStreamReader(
                    testInput != null ? testInput : System.in, java.nio.charset.StandardCharsets.UTF_8));
            return new Input() {
                @Override
                String readLine(String prompt) {
                    try {
                        return lines.readLine();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }

                @Override
                boolean interactive() {
                    return false;
                }

                @Override
                void printAbove(String text) {
                    synchronized (out) {
                        out.print(text);
                        out.flush();
                    }
                }
            };
        }
    }
}
