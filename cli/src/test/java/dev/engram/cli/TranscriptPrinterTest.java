package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.agents.AgentEvent;
import dev.engram.agents.AgentStreamEvent;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.Scope;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code engram chat} shows the tail of a running tool's output, redrawn in place, and then only the call's line. */
class TranscriptPrinterTest {
    private static final Scope SCOPE = Scope.of("ana", "helper");

    private final StringWriter text = new StringWriter();

    private TranscriptPrinter printer(boolean terminal) {
        return new TranscriptPrinter(new PrintWriter(text, true), "helper", terminal);
    }

    /** What a terminal shows after the printed text: lines, with cursor-up-and-clear applied. */
    private List<String> screen() {
        List<String> lines = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        String s = text.toString().replace(System.lineSeparator(), "\n");
        for (int i = 0; i < s.length(); i++) {
            if (s.startsWith("\u001b[1A\u001b[2K", i)) {
                lines.removeLast();
                i += "\u001b[1A\u001b[2K".length() - 1;
            } else if (s.charAt(i) == '\n') {
                lines.add(current.toString());
                current.setLength(0);
            } else {
                current.append(s.charAt(i));
            }
        }
        assertThat(current.toString()).isEmpty();
        return lines;
    }

    private static AgentStreamEvent.ToolProgress progress(String chunk) {
        return new AgentStreamEvent.ToolProgress(1, "c1", "shell_exec", chunk);
    }

    @Test
    void aRunningToolsLastLinesShowAndAreOverwrittenAsMoreCome() {
        TranscriptPrinter p = printer(true);

        p.onEvent(progress("line 1\nline 2\n"));
        assertThat(screen()).containsExactly("    | line 1", "    | line 2");
        p.onEvent(progress("line 3\nline 4\nline 5\nhalf of 6"));
        assertThat(screen()).containsExactly("    | line 4", "    | line 5", "    | half of 6");
        p.onEvent(progress(" and its end\n"));
        assertThat(screen()).containsExactly("    | line 4", "    | line 5", "    | half of 6 and its end");
    }

    @Test
    void whenTheCallEndsItsOutputGivesWayToItsOneLine() {
        TranscriptPrinter p = printer(true);
        ToolCall call = new ToolCall("c1", "shell_exec", "{\"command\":\"make\"}");
        p.onEvent(new AgentEvent.ToolCallStarted(SCOPE, call));
        p.onEvent(progress("compiling\nlinking\n"));

        p.onEvent(new AgentEvent.ToolCallFinished(SCOPE, ToolResult.withoutEffects(call, ToolStatus.SUCCESS, "exit code 0")));
        p.onEvent(new AgentStreamEvent.ToolReturn(1, ToolResult.withoutEffects(call, ToolStatus.SUCCESS, "exit code 0")));

        assertThat(screen()).singleElement().asString().startsWith("  - shell_exec {\"command\":\"make\"}");
    }

    @Test
    void aToolsControlCharactersNeverReachTheTerminalAndACarriageReturnRestartsTheLine() {
        TranscriptPrinter p = printer(true);

        p.onEvent(progress("\u001b[31mred\u001b[0m\n10%\r55%\r90%"));

        assertThat(screen()).containsExactly("    |  [31mred [0m", "    | 90%");
    }

    @Test
    void withoutATerminalNoOutputOfARunningToolIsPrinted() {
        TranscriptPrinter p = printer(false);

        p.onEvent(progress("line 1\nline 2\n"));

        assertThat(text.toString()).isEmpty();
    }
}
