package dev.engram.framework;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** Small typed tools shared by the framework tests; each counts its runs so tests can prove nothing ran. */
final class TestTools {
    private TestTools() {
    }

    enum Encoding {
        @JsonProperty("utf-8") UTF8,
        @JsonProperty("ascii") ASCII
    }

    record ReadFile(
            @JsonPropertyDescription("Path of the file, relative to the workspace root.") String path,
            @JsonPropertyDescription("First line to return, 1-based.") Optional<Integer> startLine,
            @JsonPropertyDescription("How the file is encoded.") Optional<Encoding> encoding) {
    }

    record Echo(String text) {
    }

    record Nothing() {
    }

    record Item(String name, int quantity) {
    }

    record Order(List<Item> items, boolean express) {
    }

    @JsonClassDescription("Manage a memory block.")
    sealed interface BlockOp permits Append, Replace, View {
    }

    @JsonClassDescription("append text to a block")
    record Append(@JsonPropertyDescription("Block label.") String label, String text) implements BlockOp {
    }

    @JsonClassDescription("replace exact text in a block")
    record Replace(@JsonPropertyDescription("Block label.") String label, String oldText, String newText) implements BlockOp {
    }

    @JsonClassDescription("show a block")
    record View(@JsonPropertyDescription("Block label.") String label) implements BlockOp {
    }

    /** A typed tool whose body is a lambda and which counts its runs. */
    static final class Counting<I, O> implements AiTool<I, O> {
        final AtomicInteger runs = new AtomicInteger();
        private final String name;
        private final Class<I> input;
        private final SafetyTier tier;
        private final Duration timeout;
        private final Truncation truncation;
        private final AiTool.Function<I, O> body;
        private final String preview;

        Counting(String name, Class<I> input, SafetyTier tier, Duration timeout, Truncation truncation,
                String preview, AiTool.Function<I, O> body) {
            this.name = name;
            this.input = input;
            this.tier = tier;
            this.timeout = timeout;
            this.truncation = truncation;
            this.preview = preview;
            this.body = body;
        }

        static <I, O> Counting<I, O> of(String name, Class<I> input, SafetyTier tier, AiTool.Function<I, O> body) {
            return new Counting<>(name, input, tier, Duration.ofSeconds(5), Truncation.KEEP_HEAD, null, body);
        }

        Counting<I, O> withTimeout(Duration t) {
            return new Counting<>(name, input, tier, t, truncation, preview, body);
        }

        Counting<I, O> withTruncation(Truncation t) {
            return new Counting<>(name, input, tier, timeout, t, preview, body);
        }

        Counting<I, O> withPreview(String p) {
            return new Counting<>(name, input, tier, timeout, truncation, p, body);
        }

        @Override
        public ToolInfo info() {
            return new ToolInfo(name,
                "Test tool " + name + ".",
                tier, timeout, truncation);
        }

        @Override
        public Class<I> inputType() {
            return input;
        }

        @Override
        public O execute(I in, ToolContext context) throws Exception {
            runs.incrementAndGet();
            return body.apply(in, context);
        }

        @Override
        public Optional<String> approvalPreview(I in, ToolContext context) {
            return Optional.ofNullable(preview);
        }
    }
}
