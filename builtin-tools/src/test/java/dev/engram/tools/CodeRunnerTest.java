package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.ToolProgress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hostile programs, each contained by the sandbox, in both languages: the network, the host's files, a fork bomb, an
 * endless loop, endless output and a memory hog.
 */
class CodeRunnerTest {
    /** A runner with a short timeout and a small output limit, or the test skipped saying what to install. */
    static CodeRunner runner(Duration timeout, CodeLanguage... needed) {
        assumeTrue(Bubblewrap.find().isPresent(), "skipped: bwrap is not installed (" + Bubblewrap.INSTALL + ")");
        for (CodeLanguage l : needed) {
            assumeTrue(Bubblewrap.programUnderUsr(l.interpreter()).isPresent(), "skipped: " + l.interpreter()
                    + " is not installed under /usr (" + (l == CodeLanguage.PYTHON ? "apt-get install python3" : "apt-get install nodejs") + ")");
        }
        return CodeRunner.sandboxed(timeout, CodeRunner.defaultLimits(), 256 * 1024);
    }

    private static CodeRun run(CodeLanguage language, String python, String javascript) throws Exception {
        return runner(Duration.ofSeconds(20), language).run(language, language == CodeLanguage.PYTHON ? python : javascript,
                ToolProgress.NONE);
    }

    @Test
    void withoutBubblewrapThereIsNoRunnerAndTheMessageSaysWhatToInstall() {
        assertThatThrownBy(() -> CodeRunner.of(Duration.ofSeconds(5), CodeRunner.defaultLimits(), 4096, Optional.empty()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("apt-get install bubblewrap")
                .hasMessageContaining("never run unsandboxed");
    }

    @Test
    void badSettingsAreRefusedAtOnce() {
        assertThatThrownBy(() -> CodeRunner.sandboxed(Duration.ZERO, CodeRunner.defaultLimits(), 4096))
                .hasMessageContaining("timeout must be positive");
        assertThatThrownBy(() -> CodeRunner.sandboxed(Duration.ofSeconds(1), CodeRunner.defaultLimits(), 10))
                .hasMessageContaining("at least 1024 bytes");
    }

    @ParameterizedTest
    @EnumSource(CodeLanguage.class)
    void aProgramPrintsAndItsOutputIsReportedLive(CodeLanguage language) throws Exception {
        CodeRunner runner = runner(Duration.ofSeconds(20), language);
        CopyOnWriteArrayList<String> live = new CopyOnWriteArrayList<>();
        CodeRun run = runner.run(language, language == CodeLanguage.PYTHON
                ? "import sys\nprint('héllo', 6 * 7)\nprint('oops', file=sys.stderr)"
                : "console.log('héllo', 6 * 7); console.error('oops');", live::add);
        assertThat(run.succeeded()).isTrue();
        assertThat(run.stdout()).isEqualTo("héllo 42\n");
        assertThat(run.stderr()).isEqualTo("oops\n");
        // Both streams, as they come: their pieces may interleave.
        assertThat(String.join("", live)).contains("héllo").contains("42").contains("oops");
    }

    @ParameterizedTest
    @EnumSource(CodeLanguage.class)
    void theNetworkIsUnreachableEvenTheHostsLoopback(CodeLanguage language) throws Exception {
        try (ServerSocket host = new ServerSocket(0)) {
            int port = host.getLocalPort();
            CodeRun run = run(language, """
                    import socket
                    for address in [("127.0.0.1", %d), ("1.1.1.1", 80), ("example.com", 80)]:
                        try:
                            socket.create_connection(address, timeout=3)
                            print("connected", address)
                        except OSError as e:
                            print("refused", type(e).__name__)
                    """.formatted(port), """
                    const net = require('net');
                    const tryIt = (host, port) => new Promise(done => {
                      const s = net.connect({host, port, timeout: 3000});
                      s.on('connect', () => { console.log('connected', host); s.destroy(); done(); });
                      s.on('error', e => { console.log('refused', e.code); done(); });
                      s.on('timeout', () => { console.log('refused timeout'); s.destroy(); done(); });
                    });
                    await tryIt('127.0.0.1', %d); await tryIt('1.1.1.1', 80); await tryIt('example.com', 80);
                    """.formatted(port));
            assertThat(run.stdout()).doesNotContain("connected").contains("refused");
            assertThat(run.stdout().lines().count()).isEqualTo(3);
        }
    }

    @ParameterizedTest
    @EnumSource(CodeLanguage.class)
    void theHostsFilesAreNeitherReadNorWritten(CodeLanguage language, @TempDir Path store) throws Exception {
        Path secret = Files.writeString(store.resolve("engram.db"), "the store");
        Path planted = Path.of(System.getProperty("user.home"), "engram-escape-" + UUID.randomUUID());
        try {
            CodeRun run = run(language, """
                    import os
                    for path in ["/etc/shadow", "%1$s"]:
                        try:
                            open(path).read()
                            print("read", path)
                        except OSError as e:
                            print("unreadable", type(e).__name__)
                    for path in ["%2$s", "/usr/engram-escape", "/etc/passwd"]:
                        try:
                            open(path, "w").write("pwned")
                            print("wrote", path)
                        except OSError as e:
                            print("unwritable", type(e).__name__)
                    open("/tmp/scratch.txt", "w").write("ok")
                    print("scratch", open("/tmp/scratch.txt").read())
                    """.formatted(secret, planted), """
                    const fs = require('fs');
                    for (const p of ['/etc/shadow', '%1$s']) {
                      try { fs.readFileSync(p); console.log('read', p); } catch (e) { console.log('unreadable', e.code); }
                    }
                    for (const p of ['%2$s', '/usr/engram-escape', '/etc/passwd']) {
                      try { fs.writeFileSync(p, 'pwned'); console.log('wrote', p); } catch (e) { console.log('unwritable', e.code); }
                    }
                    fs.writeFileSync('/tmp/scratch.txt', 'ok'); console.log('scratch', fs.readFileSync('/tmp/scratch.txt', 'utf8'));
                    """.formatted(secret, planted));
            assertThat(run.stdout()).doesNotContain("read /").doesNotContain("wrote");
            assertThat(run.stdout()).contains("unreadable").contains("unwritable").contains("scratch ok");
            assertThat(planted).doesNotExist();
            assertThat(Path.of("/usr/engram-escape")).doesNotExist();
            assertThat(Files.readString(secret)).isEqualTo("the store");
        } finally {
            Files.deleteIfExists(planted);
        }
    }

    @ParameterizedTest
    @EnumSource(CodeLanguage.class)
    void aForkBombMeetsTheProcessLimitAndEnds(CodeLanguage language) throws Exception {
        CodeRun run = runner(Duration.ofSeconds(15), language).run(language, language == CodeLanguage.PYTHON ? """
                import os
                started = 0
                try:
                    for _ in range(10000):
                        if os.fork() == 0:
                            import time
                            time.sleep(30)
                            os._exit(0)
                        started += 1
                except OSError as e:
                    print("fork refused after", started, type(e).__name__)
                """ : """
                const { spawn } = require('child_process');
                let started = 0, refused = false;
                for (let i = 0; i < 10000 && !refused; i++) {
                  try {
                    const c = spawn('/usr/bin/sleep', ['30']);
                    c.on('error', e => { if (!refused) { refused = true; console.log('spawn refused after', started, e.code); } });
                    started++;
                  } catch (e) { refused = true; console.log('spawn refused after', started, e.code); }
                  await new Promise(r => setImmediate(r));
                }
                process.exit(0);
                """, ToolProgress.NONE);
        assertThat(run.stdout()).contains("refused after");
        int started = Integer.parseInt(run.stdout().replaceAll("(?s).*refused after (\\d+).*", "$1"));
        assertThat(started).isLessThan(CodeRunner.defaultLimits().processes());
        assertThat(run.duration()).isLessThan(Duration.ofSeconds(15));
    }

    @ParameterizedTest
    @EnumSource(CodeLanguage.class)
    void anEndlessLoopIsKilledAtTheTimeout(CodeLanguage language) throws Exception {
        CodeRun run = runner(Duration.ofSeconds(2), language).run(language, language == CodeLanguage.PYTHON
                ? "print('start', flush=True)\nwhile True:\n    pass" : "console.log('start'); for (;;) {}", ToolProgress.NONE);
        assertThat(run.stop()).isEqualTo(CodeRun.Stop.TIMED_OUT);
        assertThat(run.exitCode()).isEmpty();
        assertThat(run.stdout()).isEqualTo("start\n");
        assertThat(run.duration()).isLessThan(Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @EnumSource(CodeLanguage.class)
    void endlessOutputIsCutAndTheProgramKilled(CodeLanguage language) throws Exception {
        CodeRun run = runner(Duration.ofSeconds(20), language).run(language, language == CodeLanguage.PYTHON
                ? "while True:\n    print('x' * 1000)" : "for (;;) { console.log('x'.repeat(1000)); }", ToolProgress.NONE);
        assertThat(run.stop()).isEqualTo(CodeRun.Stop.OUTPUT_LIMIT);
        assertThat(run.stdout().length()).isLessThan(CodeRunner.KEPT_BYTES + 200);
        assertThat(run.stdout()).startsWith("[... ").contains("earlier bytes dropped");
        assertThat(run.duration()).isLessThan(Duration.ofSeconds(15));
    }

    @ParameterizedTest
    @EnumSource(CodeLanguage.class)
    void aMemoryHogFailsAtTheMemoryLimit(CodeLanguage language) throws Exception {
        CodeRun run = run(language, """
                blocks = []
                for _ in range(64):
                    blocks.append(bytearray(256 * 1024 * 1024))
                print("allocated", len(blocks) * 256, "MiB")
                """, """
                const blocks = [];
                for (let i = 0; i < 64; i++) { const a = new Array(32 * 1024 * 1024).fill(i); blocks.push(a); }
                console.log('allocated', blocks.length * 256, 'MiB');
                """);
        assertThat(run.stdout()).doesNotContain("allocated");
        assertThat(run.succeeded()).isFalse();
        if (language == CodeLanguage.PYTHON) {
            assertThat(run.stderr()).contains("MemoryError");
        }
    }
}
