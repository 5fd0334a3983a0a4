package dev.engram.framework.model;

import dev.engram.framework.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Assembles streamed tool calls from their fragments. Providers send a call's id and name once and
 * its argument text in pieces, cut anywhere (mid-token, mid-escape); fragments are keyed by the
 * call's index in the turn. The assembled arguments are passed on verbatim, even if they are not
 * valid JSON, so that the tool pipeline can tell the model what to fix.
 *
 * <p>Not thread-safe: one accumulator per streamed response.
 */
public final class ToolCallAccumulator {
    private static final class Partial {
        String id = "";
        String name = "";
        final StringBuilder arguments = new StringBuilder();
    }

    private final Map<Integer, Partial> calls = new TreeMap<>();

    /**
     * Adds a fragment of call {@code index}. {@code id} and {@code name} may be null or empty on
     * fragments that do not carry them; {@code argumentsFragment} may be null.
     */
    public void add(int index, String id, String name, String argumentsFragment) {
        Partial p = calls.computeIfAbsent(index, i -> new Partial());
        if (id != null && !id.isEmpty()) {
            p.id = id;
        }
        if (name != null && !name.isEmpty()) {
            p.name = p.name.isEmpty() ? name : p.name;
        }
        if (argumentsFragment != null) {
            p.arguments.append(argumentsFragment);
        }
    }

    public boolean isEmpty() {
        return calls.isEmpty();
    }

    /** The calls in index order; a call without an id gets {@code call_<index>}. */
    public List<ToolCall> calls() {
        List<ToolCall> out = new ArrayList<>(calls.size());
        for (Map.Entry<Integer, Partial> e : calls.entrySet()) {
            Partial p = e.getValue();
            String args = p.arguments.isEmpty() ? "{}" : p.arguments.toString();
            out.add(new ToolCall(p.id.isEmpty() ? "call_" + e.getKey() : p.id, p.name, args));
        }
        return out;
    }
}
