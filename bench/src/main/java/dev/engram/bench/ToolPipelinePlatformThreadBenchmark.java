package dev.engram.bench;

import org.openjdk.jmh.annotations.Fork;

/**
 * {@link ToolPipelineBenchmark} with platform-thread callers. The tool still runs on its own virtual
 * thread (that is how its timeout is enforced), so each call pays two operating-system thread
 * wake-ups: the carrier that runs the tool, and the caller when the result is ready.
 */
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Djmh.executor=PLATFORM"})
public class ToolPipelinePlatformThreadBenchmark extends ToolPipelineBenchmark {
}
