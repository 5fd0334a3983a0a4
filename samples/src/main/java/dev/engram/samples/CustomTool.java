package dev.engram.samples;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolRegistry;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.tools.BuiltinTools;
import dev.engram.tools.MessageRouter;
import dev.engram.tools.PermissionBroker;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Your own tools next to the built-ins: a typed {@link AiTool} (a record for its input; the schema is
 * generated, the arguments validated, the output serialised) and annotated {@code @Tool} methods
 * ({@link DiceTools}). Give them to an agent with {@code AgentRuntime.Builder.tool(...)} and name them
 * in its definition.
 */
public final class CustomTool {
    private static final Map<String, Double> EUR_PER_UNIT = Map.of("EUR", 1.0, "USD", 0.92, "GBP", 1.17, "JPY", 0.0061);

    private CustomTool() {
    }

    /** The input of {@code convert_currency}. */
    public record Conversion(@JsonPropertyDescription("The amount to convert.") double amount,
            @JsonPropertyDescription("ISO code of the currency it is in, e.g. USD.") String from,
            @JsonPropertyDescription("ISO code of the currency wanted, e.g. EUR.") String to) {
    }

    /** A typed tool: converts between a few currencies at fixed example rates. */
    public static AiTool<Conversion, Map<String, Object>> currencyConverter() {
        return AiTool.of("convert_currency", "Convert an amount between EUR, USD, GBP and JPY at fixed example rates. "
                + "Returns {\"amount\": ..., \"currency\": ...}.", Conversion.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    Double from = EUR_PER_UNIT.get(in.from().toUpperCase(Locale.ROOT));
                    Double to = EUR_PER_UNIT.get(in.to().toUpperCase(Locale.ROOT));
                    if (from == null || to == null) {
                        throw new ToolException("Unknown currency; use one of " + EUR_PER_UNIT.keySet() + ".");
                    }
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("amount", Math.round(in.amount() * from / to * 100) / 100.0);
                    out.put("currency", in.to().toUpperCase(Locale.ROOT));
                    return out;
                });
    }

    /** A registry with the built-in memory tools, {@code send_message}, and the custom tools. */
    public static ToolRegistry registry(MemoryStore store, MemorySearch search, MessageRouter router) {
        return ToolRegistry.create()
                .registerAll(BuiltinTools.memory(store, search, PermissionBroker.denyAll()))
                .registerAll(BuiltinTools.notes(store, search))
                .register(BuiltinTools.sendMessage(router))
                .register(currencyConverter())
                .registerAnnotated(new DiceTools(RandomGenerator.getDefault()));
    }

    public static void main(String[] args) {
        try (MemoryStore store = MemoryStore.inMemory();
                var embedder = dev.engram.memory.Embedder.onnxDefault();
                MemorySearch search = MemorySearch.luceneInMemory(store, embedder)) {
            ToolRegistry registry = registry(store, search, MessageRouter.to(m -> System.out.println("sent: " + m.text())));
            System.out.println(registry.toolsJson(dev.engram.framework.ToolFormat.OPENAI).toPrettyString());
            var executor = dev.engram.framework.ToolExecutor.builder(registry).build();
            var ctx = dev.engram.framework.ToolContext.builder().userId("me").agentId("sample").build();
            System.out.println(executor.execute(dev.engram.framework.ToolCall.of("convert_currency",
                    "{\"amount\": 100, \"from\": \"USD\", \"to\": \"EUR\"}"), ctx).content());
            System.out.println(executor.execute(dev.engram.framework.ToolCall.of("roll", "{\"count\": 2, \"sides\": 6}"), ctx)
                    .content());
        }
    }
}
