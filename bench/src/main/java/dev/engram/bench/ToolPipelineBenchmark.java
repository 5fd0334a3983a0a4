package dev.engram.bench;

import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.json.JsonMapper;

/**
 * Overhead of the whole tool pipeline (lookup, policy, parse, schema validation, approval check,
 * run on a virtual thread with a timeout, serialise, truncate) for a trivial typed tool, next to a
 * bare Jackson {@code readValue} of the same arguments into the same record.
 *
 * <p>The benchmark threads are virtual threads ({@code jmh.executor=VIRTUAL}), as the agent runtime's
 * are: handing the call to the tool's virtual thread and back is then a continuation switch. See
 * {@link ToolPipelinePlatformThreadBenchmark} for callers on platform threads.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Djmh.executor=VIRTUAL"})
@State(Scope.Benchmark)
public class ToolPipelineBenchmark {
    /** The trivial tool's input. */
    public record Add(int a, int b) {
    }

    private static final String ARGUMENTS = "{\"a\": 40, \"b\": 2}";

    private ToolExecutor executor;
    private ToolCall call;
    private ToolContext context;
    private JsonMapper mapper;

    @Setup
    public void setUp() {
        ToolRegistry registry = ToolRegistry.create().register(AiTool.of("add", "Adds two integers.", Add.class,
                SafetyTier.READ_ONLY, (in, ctx) -> in.a() + in.b()));
        executor = ToolExecutor.builder(registry).approvalMode(ApprovalMode.AUTO).build();
        call = new ToolCall("call-1", "add", ARGUMENTS);
        context = ToolContext.builder().userId("u").agentId("a").sessionId("s").build();
        mapper = JsonMapper.builder().build();
        ToolResult check = executor.execute(call, context);
        if (check.isError() || !check.content().equals("42")) {
            throw new IllegalStateException("pipeline does not work: " + check);
        }
    }

    @Benchmark
    public ToolResult pipeline() {
        return executor.execute(call, context);
    }

    @Benchmark
    public Add jacksonReadValue() {
        return mapper.readValue(ARGUMENTS, Add.class);
    }
}
