package dev.engram.cli;

import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.memory.WorkState;
import java.io.PrintWriter;

/** An agent's goals and todos as {@code engram agent show} prints them, one line each, after its blocks. */
final class WorkLines {
    private WorkLines() {
    }

    static void print(PrintWriter out, MemoryStore store, Scope scope) {
        WorkState state;
        try {
            state = store.work().snapshot(scope);
        } catch (UnsupportedOperationException e) {
            return; // a store without work state has none to show
        }
        for (Goal g : state.openGoals()) {
            out.println("goal " + g.id() + (g.current() ? " (current)" : "") + ": " + TranscriptPrinter.compact(g.title()));
        }
        for (GoalEntry e : state.checkpoints()) {
            out.println("  checkpoint: " + TranscriptPrinter.compact(e.text()));
        }
        for (GoalEntry e : state.decisions()) {
            out.println("  decision: " + TranscriptPrinter.compact(e.text())
                    + (e.rationale().isEmpty() ? "" : " (because " + TranscriptPrinter.compact(e.rationale()) + ")"));
        }
        for (TodoItem t : state.todos()) {
            out.println("todo [" + t.status().wire() + "] " + TranscriptPrinter.compact(t.content()));
        }
    }
}
