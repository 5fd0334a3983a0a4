package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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

    /** A copy of the launcher in its own root, with a fake Maven wrapper and a fake JDK; no jar yet. */
    private Path launcherWithFakeBuild(String mvnw) throws IOException {
        Path root = Files.createDirectories(dir.resolve("clone"));
        Path launcher = Files.copy(LAUNCHER, root.resolve("engram"));
        Path wrapper = Files.writeString(root.resolve("mvnw"), mvnw);
        Path bin = Files.createDirectories(dir.resolve("jdk").resolve("bin"));
        Path java = Files.writeString(bin.resolve("java"), """
                #!/bin/sh
                case "$*" in *-XshowSettings*) echo "    java.specification.version = 25" >&2; exit 0;; esac
                echo "engram ran"
                """);
        for (Path p : List.of(launcher, wrapper, java)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return launcher;
    }

    private Process runLauncher(Path launcher, Path errFile) throws IOException {
        ProcessBuilder pb = new ProcessBuilder("bash", launcher.toString(), "--version");
        pb.environment().put("JAVA_HOME", dir.resolve("jdk").toString());
        pb.environment().put("ENGRAM_HOME", dir.resolve("home").toString());
        pb.environment().remove("ENGRAM_JAR");
        return pb.redirectError(errFile.toFile()).start();
    }

    @Test
    void aFirstRunSaysHowLongTheBuildTakesAndPrintsALinePerModule() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        Path launcher = launcherWithFakeBuild("""
                #!/bin/sh
                echo "[INFO] Scanning for projects..."
                echo "[INFO] Building Engram framework 0.1.0-SNAPSHOT                               [1/3]"
                echo "[INFO] Compiling 120 source files"
                echo "[INFO] Building Engram memory 0.1.0-SNAPSHOT                                  [2/3]"
                echo "[INFO] Building Engram CLI 0.1.0-SNAPSHOT                                     [3/3]"
                mkdir -p cli/target && echo jar > cli/target/engram.jar
                echo "[INFO] BUILD SUCCESS"
                """);
        Path errFile = dir.resolve("stderr.txt");
        Process p = runLauncher(launcher, errFile);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("engram ran\n");
        String err = Files.readString(errFile);
        assertThat(err).contains("about 2 minutes on 2 cores, once")
                .containsPattern("engram:   \\[1/3\\] Engram framework \\(0:\\d\\d so far\\)")
                .containsPattern("engram:   \\[2/3\\] Engram memory \\(0:\\d\\d so far\\)")
                .containsPattern("engram:   \\[3/3\\] Engram CLI \\(0:\\d\\d so far\\)")
                .containsPattern("engram: built in 0:\\d\\d")
                .doesNotContain("Compiling 120").doesNotContain("Scanning");
        assertThat(err.indexOf("[1/3]")).isLessThan(err.indexOf("[2/3]")).isLessThan(err.indexOf("[3/3]"));

        // The jar is there now: the next run builds nothing and says nothing.
        Path again = dir.resolve("stderr2.txt");
        Process second = runLauncher(launcher, again);
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(again)).doesNotContain("building");
    }

    @Test
    void aFailedBuildShowsMavensLastLinesAndItsExitCodeAndRunsNothing() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        Path launcher = launcherWithFakeBuild("""
                #!/bin/sh
                echo "[INFO] Building Engram framework 0.1.0-SNAPSHOT                               [1/3]"
                echo "[ERROR] COMPILATION ERROR: Foo.java:[3,1] class, interface, enum, or record expected"
                exit 7
                """);
        Path errFile = dir.resolve("stderr.txt");
        Process p = runLauncher(launcher, errFile);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(7);
        assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).doesNotContain("engram ran");
        assertThat(Files.readString(errFile)).contains("engram:   [1/3] Engram framework")
                .containsPattern("the build failed after 0:\\d\\d \\(Maven exit 7\\)")
                .contains("[ERROR] COMPILATION ERROR: Foo.java:[3,1]");
    }
    /**
     * A fake JDK whose release file says {@code feature}: its java writes its arguments to {@code args.txt} and, as a
     * JVM that records an AOT cache does at exit, writes the file {@code -XX:AOTCacheOutput} names.
     */
    private Path fakeJdkWithRelease(String name, int feature) throws IOException {
        Path jdk = Files.createDirectories(dir.resolve(name));
        Files.writeString(jdk.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"" + feature + ".0.1\"\n");
        Path bin = Files.createDirectories(jdk.resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, """
                #!/bin/sh
                case "$*" in *-XshowSettings*) touch "$(dirname "$0")/asked"; echo "    java.specification.version = 17" >&2; exit 0;; esac
                echo "$@" > "$(dirname "$0")/args.txt"
                for a in "$@"; do case "$a" in -XX:AOTCacheOutput=*) echo cache > "${a#-XX:AOTCacheOutput=}";; esac; done
                echo "Picked up JAVA_TOOL_OPTIONS: -Djava.class.path=x.jar -XX:AOTCacheOutput=c.aot -XX:AOTMode=create" >&2
                echo "Picked up JAVA_TOOL_OPTIONS: -Xmx1g" >&2
                """);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return java;
    }

    /** Runs the launcher with {@code args} on the JDK at {@code java}, the jar {@code jar} and the home {@code home}. */
    private String launch(Path java, Path jar, Path home, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", LAUNCHER.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("JAVA_HOME", java.getParent().getParent().toString());
        pb.environment().put("ENGRAM_JAR", jar.toString());
        pb.environment().put("ENGRAM_HOME", home.toString());
        Path errFile = dir.resolve("launch-stderr.txt");
        Process p = pb.redirectError(errFile.toFile()).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String err = "";
        for (int i = 0; i < 100 && !err.contains("-Xmx1g"); i++) {
            Thread.sleep(20);
            err = Files.readString(errFile);
        }
        assertThat(err).as("the JVM's own lines about an AOT training run are dropped, the user's kept")
                .doesNotContain("AOTMode=create").contains("Picked up JAVA_TOOL_OPTIONS: -Xmx1g");
        return Files.readString(java.getParent().resolve("args.txt")).strip();
    }

    @Test
    void theJdkVersionIsReadFromItsReleaseFileWithoutStartingAJvm() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        Path java = fakeJdkWithRelease("jdk25", 25);
        assertThat(chosenJava(Map.of("JAVA_HOME", java.getParent().getParent().toString()))).isEqualTo(java.toString());
        assertThat(java.getParent().resolve("asked")).as("the JVM was not started to ask its version").doesNotExist();
    }

    @Test
    void onJdk25TheFirstRunOfEachKindTrainsAnAotCacheThatLaterRunsUseUntilTheJarChanges() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        Path java = fakeJdkWithRelease("jdk25", 25);
        Path jar = Files.writeString(dir.resolve("engram.jar"), "jar");
        Path home = dir.resolve("home");
        Path caches = home.resolve("cds");

        String first = launch(java, jar, home, "--version");
        assertThat(first).containsPattern("-XX:AOTCacheOutput=" + Pattern.quote(caches.toString()) + "/cli-\\d+\\.aot\\.tmp\\.\\d+ ")
                .contains("-Xlog:aot*=off").doesNotContain("AutoCreateSharedArchive");
        String second = launch(java, jar, home, "search", "octopus");
        assertThat(second).containsPattern("-XX:AOTCache=" + Pattern.quote(caches.toString()) + "/cli-\\d+\\.aot ")
                .doesNotContain("AOTCacheOutput").endsWith("search octopus")
                .as("mapped where it was written, not relocated").contains("-XX:ArchiveRelocationMode=0");
        assertThat(first).doesNotContain("ArchiveRelocationMode");
        assertThat(launch(java, jar, home, "--home", "h", "serve")).as("serve has a cache of its own")
                .containsPattern("-XX:AOTCacheOutput=.*/serve-\\d+\\.aot\\.tmp\\.\\d+ ");
        assertThat(launch(java, jar, home, "--home", "h", "serve")).containsPattern("-XX:AOTCache=.*/serve-\\d+\\.aot ")
                .as("a server keeps the cache's address randomised").doesNotContain("ArchiveRelocationMode");
        assertThat(launch(java, jar, home, "keys", "list")).contains("-XX:AOTCache=").contains("/cli-")
                .as("only a server defers C2").doesNotContain("Tier4");
        assertThat(launch(java, jar, home, "--home", "h", "serve", "--port", "0"))
                .as("a server's start leaves C2 to its hot paths").contains("-XX:Tier4InvocationThreshold=50000",
                        "-XX:Tier4MinInvocationThreshold=6000", "-XX:Tier4CompileThreshold=150000",
                        "-XX:Tier4BackEdgeThreshold=400000").endsWith("serve --port 0");

        // a new build: a new cache is trained, and the stale one is deleted
        Files.writeString(jar, "a new build of the jar");
        assertThat(launch(java, jar, home, "keys", "list")).contains("-XX:AOTCacheOutput=");
        try (Stream<Path> files = Files.list(caches)) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("cli-")).toList()).hasSize(1);
        }
        assertThat(launch(java, jar, home, "keys", "list")).contains("-XX:AOTCache=");
    }

    @Test
    void onceItsCacheIsWrittenAStartRunsNoProgramButStatBeforeTheJvm() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        // bash, stat, and sed (which filters the JVM's standard error as it runs): no readlink, dirname, head, cksum, cut
        // or mkdir, each of which was a process started on every start
        Path bin = Files.createDirectories(dir.resolve("few-programs"));
        for (String program : List.of("bash", "stat", "sed")) {
            Path found = Stream.of(System.getenv("PATH").split(":")).map(d -> Path.of(d, program))
                    .filter(Files::isExecutable).findFirst().orElseThrow();
            Files.createSymbolicLink(bin.resolve(program), found.toRealPath());
        }
        Path java = fakeJdkWithRelease("jdk25", 25);
        // a java that needs no other program either: it writes its arguments and the cache it is asked to record
        Files.writeString(java, "#!" + bin.resolve("bash") + "\necho \"$@\" > " + java.getParent().resolve("args.txt") + """

                for a in "$@"; do case "$a" in -XX:AOTCacheOutput=*) echo cache > "${a#-XX:AOTCacheOutput=}";; esac; done
                echo "Picked up JAVA_TOOL_OPTIONS: -Xmx1g" >&2
                """);
        Path jar = Files.writeString(dir.resolve("engram.jar"), "jar");
        Path home = dir.resolve("home");
        launch(java, jar, home, "--version"); // trains the cache
        launch(java, jar, home, "--version"); // takes the written cache over

        ProcessBuilder pb = new ProcessBuilder(bin.resolve("bash").toString(), LAUNCHER.toString(), "keys", "list");
        pb.environment().put("PATH", bin.toString());
        pb.environment().put("JAVA_HOME", java.getParent().getParent().toString());
        pb.environment().put("ENGRAM_JAR", jar.toString());
        pb.environment().put("ENGRAM_HOME", home.toString());
        Process p = pb.redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).as("no 'command not found'").doesNotContain("not found").doesNotContain("No such file");
        assertThat(Files.readString(java.getParent().resolve("args.txt")))
                .contains("-XX:AOTCache=" + home.resolve("cds")).endsWith("keys list\n");
    }

    @Test
    void aCacheThatARunStillWritesIsNeitherUsedNorWrittenAgain() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        Path java = fakeJdkWithRelease("jdk25", 25);
        Path jar = Files.writeString(dir.resolve("engram.jar"), "jar");
        Path home = dir.resolve("home");
        String first = launch(java, jar, home, "--version");
        Matcher m = Pattern.compile("-XX:AOTCacheOutput=(\\S+)\\.tmp\\.\\d+").matcher(first);
        assertThat(m.find()).isTrue();
        Path cache = Path.of(m.group(1));
        // as if this test's own JVM were still training it
        Files.move(Path.of(m.group(0).substring("-XX:AOTCacheOutput=".length())),
                Path.of(cache + ".tmp." + ProcessHandle.current().pid()));
        String during = launch(java, jar, home, "--version");
        assertThat(during).doesNotContain("AOTCache").doesNotContain("SharedArchive");
        assertThat(cache).doesNotExist();
    }

    @Test
    void onJdk21To24TheLauncherKeepsAClassDataSharingArchive() throws Exception {
        assumeTrue(Files.isRegularFile(LAUNCHER), "skipped: no launcher at " + LAUNCHER);
        Path java = fakeJdkWithRelease("jdk24", 24);
        Path jar = Files.writeString(dir.resolve("engram.jar"), "jar");
        Path home = dir.resolve("home");
        String args = launch(java, jar, home, "--home", "h", "serve");
        assertThat(args).contains("-XX:+AutoCreateSharedArchive", "-XX:SharedArchiveFile=" + home.resolve("cds/engram.jsa"))
                .doesNotContain("AOTCache");
    }
}
