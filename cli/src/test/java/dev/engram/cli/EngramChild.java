package dev.engram.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@code engram} in a new JVM on this test JVM's class path, as the tests of processes start it
 * ({@code engram mcp} over stdio or HTTP, {@code engram mcp-turn}).
 *
 * <p>The child starts with the C1 compiler only and the serial collector: a child answers a handful of requests and
 * exits, so C2's compilations and G1's threads were mostly CPU spent beside the tests (about half of a child's CPU
 * time, measured on {@code engram mcp} answering a save and a search). How the child is compiled or collected does
 * not change what it answers. Lucene then says on standard error that it cannot use the vector API without C2.
 * {@code -Dengram.test.quickChildren=false} starts them with the JVM's defaults, to compare.
 */
final class EngramChild {
    /** The JVM flags of every child: native access, the vector module, offline DJL, and the quick start. */
    static final List<String> JVM_FLAGS =
            jvmFlags(Boolean.parseBoolean(System.getProperty("engram.test.quickChildren", "true")));

    private EngramChild() {
    }

    private static List<String> jvmFlags(boolean quick) {
        List<String> flags = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED", "--add-modules",
                "jdk.incubator.vector", "-Dai.djl.offline=true"));
        if (quick) {
            flags.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        }
        return List.copyOf(flags);
    }

    /** {@code java FLAGS -cp CLASSPATH dev.engram.cli.EngramCli --home HOME ARGS…}. */
    static List<String> command(Path home, String... args) {
        return command(List.of(), home, args);
    }

    /** As {@link #command(Path, String...)}, with {@code moreJvmFlags} (such as {@code -Xmx512m}) after the usual ones. */
    static List<String> command(List<String> moreJvmFlags, Path home, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(JVM_FLAGS);
        cmd.addAll(moreJvmFlags);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), EngramCli.class.getName(), "--home", home.toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** This JVM's {@code java} executable. */
    static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }
}
