package dev.engram.cli;

import dev.engram.memory.CanvasArtefact;
import dev.engram.memory.Scope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram canvas open|list}: the HTML artefacts an agent wrote with its {@code canvas} tool. */
@Command(name = "canvas", mixinStandardHelpOptions = true, description = "The interactive HTML artefacts an agent wrote "
        + "with its canvas tool.", subcommands = {CanvasCommands.Open.class, CanvasCommands.ListCanvases.class})
final class CanvasCommands extends GroupCommand {
    /**
     * What a written file carries at its start: the policy a server sends as a header, as far as a page can set it itself
     * (no network, inline code only; a {@code meta} policy cannot sandbox).
     */
    static final String META_CSP = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            + "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; "
            + "media-src data: blob:; connect-src 'none'; form-action 'none'; base-uri 'none'\">";
    private static final Pattern DOCTYPE = Pattern.compile("(?is)^\\s*<!doctype[^>]*>");

    @Command(name = "open", mixinStandardHelpOptions = true, description = {"Write an artefact to an HTML file and print "
            + "its path, to open in a browser.", "The file starts with a content security policy that keeps the page off the "
            + "network."})
    static final class Open extends BaseCommand {
        @Parameters(paramLabel = "NAME")
        String name;

        @Mixin
        ScopeOptions scope;

        @Option(names = "--version", paramLabel = "N", description = "The version; default the newest.")
        Integer version;

        @Option(names = "--out", paramLabel = "FILE", description = "Where to write it; default "
                + "HOME/canvas/AGENT/NAME-vN.html under Engram's home.")
        Path outFile;

        @Override
        int run() throws IOException {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                CanvasArtefact a = (version == null ? engine.store().canvases().latest(s, name)
                        : engine.store().canvases().get(s, name, version)).orElseThrow(() -> new IllegalArgumentException(
                        "Agent '" + scope.agent + "' has no canvas '" + name + "'" + (version == null ? "" : " version " + version)
                                + "; see its artefacts with 'engram canvas list --agent " + scope.agent + "'."));
                Path file = outFile != null ? outFile
                        : engine.home().resolve("canvas").resolve(s.agentId()).resolve(a.name() + "-v" + a.version() + ".html");
                Path parent = file.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                Files.writeString(file, withPolicy(a.content()), StandardCharsets.UTF_8);
                out().println(file.toAbsolutePath());
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = {"List an agent's artefacts (the newest version "
            + "of each), or with NAME every version of one."})
    static final class ListCanvases extends BaseCommand {
        @Parameters(paramLabel = "NAME", arity = "0..1")
        String name;

        @Mixin
        ScopeOptions scope;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                List<CanvasArtefact> all = name == null ? engine.store().canvases().list(s) : engine.store().canvases().versions(s, name);
                if (all.isEmpty()) {
                    out().println(name == null ? "No canvas artefacts." : "No canvas '" + name + "'.");
                }
                for (CanvasArtefact a : all) {
                    out().printf(Locale.ROOT, "%s  v%d  %d bytes  %s  %s%n", a.name(), a.version(), a.bytes(), a.createdAt(),
                            a.title());
                }
            }
            return 0;
        }
    }

    /** The page with {@link #META_CSP} first (after its doctype, if any), which puts the policy in its head. */
    static String withPolicy(String content) {
        Matcher m = DOCTYPE.matcher(content);
        return m.find() ? content.substring(0, m.end()) + META_CSP + content.substring(m.end()) : META_CSP + content;
    }
}
