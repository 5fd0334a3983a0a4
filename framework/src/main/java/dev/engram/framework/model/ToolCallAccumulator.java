package dev.engram.framework.model;

import dev.engram.framework.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Assembles streamed tool calls from their fragments. Providers send a call's id and name once and
 * its argument text in pieces, cut anywhere (mid-token, mid-escape), and the fragments of parallel
 * calls may interleave; fragments are keyed by the provider's index of the call. The assembled
 * arguments are passed on verbatim, even if they are not valid JSON, so that the tool pipeline can
 * tell the model what to fix.
 *
 * <p>Not thread-safe: one accumulator per streamed response.
 */
public final class ToolCallAccumulator {
    private static final class Partial {
        final int ordinal;
        String id = "";
        String name = "";
        final StringBuilder arguments = new StringBuilder();

        Partial(int ordinal) {
            this.ordinal = ordinal;
        }
    }

    private final Map<Integer, Partial> calls = new TreeMap<>();
    private final StreamListener listener;

    /** An accumulator that only assembles. */
    public ToolCallAccumulator() {
        this(StreamListener.NONE);
    }

    /** An accumulator that also passes each fragment to {@link StreamListener#onToolCallDelta}. */
    public ToolCallAccumulator(StreamListener listener) {
        this.listener = listener;
    }

    /**
     * Adds a fragment of the call the provider numbers {@code index}. {@code id} and {@code name} may be
     * null or empty on fragments that do not carry them; {@code argumentsFragment} may be null.
     *
     * @return the call's position in this answer (0 for the first call seen), as passed to the listener
     */
    public int add(int index, String id, String name, String argumentsFragment) {
        Partial p = calls.get(index);
        if (p == null) {
            p = new Partial(calls.size());
            calls.put(index, p);
        }
        String newId = "";
        String newName = "";
        if (id != null && !id.isEmpty() && p.id.isEmpty()) {
            p.id = id;
            newId = id;
        }
        if (name != null && !name.isEmpty() && p.name.isEmpty()) {
            p.name = name;
            newName = name;
        }
        String fragment = argumentsFragment == null ? "" : argumentsFragment;
        p.arguments.append(fragment);
        if (!newId.isEmpty() || !newName.isEmpty() || !fragment.isEmpty()) {
            listener.onToolCallDelta(p.ordinal, newId, newName, fragment);
        }
        return p.ordinal;
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
