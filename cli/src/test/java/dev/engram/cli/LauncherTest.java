package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@code ./engram} picks a JDK: JAVA_HOME, then PATH, then the newest in the standard places. */
class LauncherTest {
    private static final Path LAUNCHER = Path.of("").toAbsolutePath().getParent().resolve("engram");

    @TempDir
    Path dir;

    private Path fakeJava(String name, int feature) throws IOException {
        Path bin = Files.createDirectories(dir.resolve(name).resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"    java.specification.version = " + feature + "\" >&2\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return java;
    }

    private String chosenJava(Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", LAUNCHER.toString()).redirectErrorStream(true);
        pb.environment().remove("JAVA_HOME");
        pb.environment().putAll(env);
        pb.environment().put("ENGRAM_PRINT_JAVA", "1");
        Process p = pb.start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }

    @Test
    void javaHomeWinsWhenItIsAJdk21OrNewer() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        Path java25 = fakeJava("jdk25", 25);
        assertThat(chosenJava(Map.of("JAVA_HOME", java25.getParent().getParent().toString()))).isEqualTo(java25.toString());
    }

    @Test
    void anOldJavaHomeAndPathAreSkippedForANewerJdk() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        Path java17 = fakeJava("jdk17", 17);
        Path onPath = fakeJava("path17", 17);
        String path = onPath.getParent() + ":/usr/bin:/bin";
        String chosen = chosenJava(Map.of("JAVA_HOME", java17.getParent().getParent().toString(), "PATH", path,
                "HOME", dir.toString()));
        assumeTrue(!chosen.startsWith("engram: no JDK"), "skipped: no JDK 21+ installed in the standard places");
        assertThat(chosen).isNotEqualTo(java17.toString()).isNotEqualTo(onPath.toString());
        Process version = new ProcessBuilder(chosen, "-XshowSettings:properties", "-version").redirectErrorStream(true).start();
        String settings = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int feature = Integer.parseInt(settings.lines().filter(l -> l.contains("java.specification.version"))
                .findFirst().orElseThrow().split("=")[1].strip());
        assertThat(feature).isGreaterThanOrEqualTo(21);
    }

    @Test
    void withNoJdkItSaysWhichToInstallInOneLine() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        assumeTrue(List.of("/usr/lib/jvm", "/Library/Java/JavaVirtualMachines").stream().noneMatch(
                d -> Files.isDirectory(Path.of(d))), "skipped: this machine has JDKs in the standard places");
        String out = chosenJava(Map.of("PATH", "/usr/bin:/bin", "HOME", dir.toString()));
        assertThat(out).startsWith("engram: no JDK 21 or newer found").doesNotContain("\n");
    }

    @Test
    void theIncubatorNoticeIsDroppedAndEverythingElseOnStderrAndTheExitCodeKept() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        Path bin = Files.createDirectories(dir.resolve("jdk").resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, """
                #!/bin/sh
                case "$*" in *-XshowSettings*) echo "    java.specification.version = 25" >&2; exit 0;; esac
                echo "WARNING: Using incubator modules: jdk.incubator.vector" >&2
                echo "engram: something real went wrong" >&2
                echo "WARNING: another warning stays" >&2
                echo "out"
                exit 3
                """);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessBuilder pb = new ProcessBuilder("bash", LAUNCHER.toString(), "--version");
        pb.environment().put("JAVA_HOME", dir.resolve("jdk").toString());
        pb.environment().put("ENGRAM_JAR", Files.writeString(dir.resolve("fake.jar"), "").toString());
        // Standard error goes to a file: the filter writes it after the JVM process ended, and a Process pipe
        // keeps only what was written before the process exited.
        Path errFile = dir.resolve("stderr.txt");
        Process p = pb.redirectError(errFile.toFile()).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(3);
        assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("out\n");
        String err = "";
        for (int i = 0; i < 100 && !err.contains("another warning stays"); i++) {
            Thread.sleep(50);
            err = Files.readString(errFile);
        }
        assertThat(err).as("stderr").doesNotContain("incubator").contains("engram: something real went wrong", "WARNING: another warning stays");
    }
}
