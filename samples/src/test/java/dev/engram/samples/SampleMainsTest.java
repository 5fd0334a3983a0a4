package dev.engram.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each sample's main, run as a user runs it: with a {@code script:FILE} model spec and typed input. */
class SampleMainsTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private PrintStream originalOut;
    private InputStream originalIn;

    @BeforeEach
    void captureStreams() {
        originalOut = System.out;
        originalIn = System.in;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreStreams() {
        System.setOut(originalOut);
        System.setIn(originalIn);
    }

    private String script(String json) throws Exception {
        return "script:" + Files.writeString(dir.resolve("script-" + System.nanoTime() + ".json"), json);
    }

    private void type(String lines) {
        System.setIn(new ByteArrayInputStream(lines.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void persistentAssistantMain() throws Exception {
        type("Hi, I'm Ana.\n");
        PersistentAssistant.main(new String[] {script("""
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "Hello Ana!"}}]}]}"""),
                dir.resolve("data").toString()});
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("assistant > Hello Ana!");
    }

    @Test
    void chatBotMain() throws Exception {
        type("alice: hi there\nno colon here\n");
        ChatBot.main(new String[] {script("""
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "Hi Alice!"}}]}]}"""),
                dir.resolve("bot").toString()});
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("bot > alice: Hi Alice!").contains("(type 'user: message')");
    }

    @Test
    void customToolMain() {
        CustomTool.main(new String[0]);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"name\" : \"convert_currency\"").contains("\"name\" : \"roll\"")
                .contains("{\"amount\":92.0,\"currency\":\"EUR\"}");
    }
}
