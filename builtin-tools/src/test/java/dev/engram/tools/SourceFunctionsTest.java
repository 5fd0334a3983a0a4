package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolProgress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Functions written from source, called with their arguments in the sandbox (skipped without bwrap, python3 or node). */
class SourceFunctionsTest {
    private static final String ROLL = """
            def roll(sides: int, times: int = 1, agent_state=None):
                \"""Roll dice.

                Args:
                    sides: Sides of each die.
                    times: How many dice.
                \"""
                print("rolling", sides, times)
                return {"total": sides * times, "state": agent_state}
            """;

    @Test
    void aPythonFunctionGetsItsArgumentsByNameAndItsReturnValueAndPrintsComeBackApart() throws Exception {
        CodeRunner runner = CodeRunnerTest.runner(Duration.ofSeconds(20), CodeLanguage.PYTHON);
        ObjectNode schema = PythonSchemas.derive(ROLL);
        SourceFunctions.Outcome o = SourceFunctions.call(runner, CodeLanguage.PYTHON, ROLL, "roll",
                (ObjectNode) schema.path("parameters"), "{\"sides\": 6, \"times\": 2}", ToolProgress.NONE);
        assertThat(o.succeeded()).as(o.toString()).isTrue();
        assertThat(o.value()).isEqualTo("{\"total\":12,\"state\":null}");
        assertThat(o.stdout()).isEqualTo("rolling 6 2\n");

        SourceFunctions.Outcome text = SourceFunctions.call(runner, CodeLanguage.PYTHON,
                "def hello(name: str):\n    return 'hi ' + name\n", "hello", (ObjectNode) schema.path("parameters"),
                "{\"name\": \"Ana\"}", ToolProgress.NONE);
        assertThat(text.value()).isEqualTo("hi Ana");
    }

    @Test
    void aFunctionThatRaisesFailsWithItsExceptionAndTraceback() throws Exception {
        CodeRunner runner = CodeRunnerTest.runner(Duration.ofSeconds(20), CodeLanguage.PYTHON);
        SourceFunctions.Outcome o = SourceFunctions.call(runner, CodeLanguage.PYTHON,
                "def boom(x: int):\n    raise ValueError('no ' + str(x))\n", "boom", emptyParameters(), "{\"x\": 3}",
                ToolProgress.NONE);
        assertThat(o.succeeded()).isFalse();
        assertThat(o.value()).isEqualTo("ValueError: no 3");
        assertThat(o.stderr()).contains("Traceback").contains("boom");

        DynamicTool tool = SourceFunctions.tool(runner, CodeLanguage.PYTHON, "boom", "Fails.", emptyParameters(),
                "def boom(x: int):\n    raise ValueError('no ' + str(x))\n", false, 100);
        assertThatThrownBy(() -> tool.execute("{\"x\": 1}", ToolContext.empty())).isInstanceOf(ToolException.class)
                .hasMessage("Tool 'boom' failed: ValueError: no 1");
    }

    @Test
    void aJavaScriptFunctionGetsItsArgumentsInTheSchemasOrderAndMayBeAsync() throws Exception {
        CodeRunner runner = CodeRunnerTest.runner(Duration.ofSeconds(20), CodeLanguage.JAVASCRIPT);
        ObjectNode parameters = (ObjectNode) JsonMapper.builder().build().readTree("""
                {"type":"object","properties":{"greeting":{"type":"string"},"name":{"type":"string"}},"required":["name"]}
                """);
        SourceFunctions.Outcome o = SourceFunctions.call(runner, CodeLanguage.JAVASCRIPT,
                "export async function greet(name, greeting) { console.log('greeting'); return (greeting || 'Hello') + ', ' + name; }",
                "greet", parameters, "{\"greeting\": \"Olá\", \"name\": \"Ana\"}", ToolProgress.NONE);
        assertThat(o.succeeded()).as(o.toString()).isTrue();
        assertThat(o.value()).isEqualTo("Olá, Ana");
        assertThat(o.stdout()).isEqualTo("greeting\n");
    }

    @Test
    void aToolsReturnValueIsCutToItsReturnLimit() throws Exception {
        CodeRunner runner = CodeRunnerTest.runner(Duration.ofSeconds(20), CodeLanguage.PYTHON);
        DynamicTool tool = SourceFunctions.tool(runner, CodeLanguage.PYTHON, "long_text", "Long.", emptyParameters(),
                "def long_text():\n    return 'x' * 50\n", false, 10);
        assertThat(tool.execute("{}", ToolContext.empty()))
                .isEqualTo("xxxxxxxxxx\n[output cut to this tool's return limit of 10 characters, from 50]");
    }

    @Test
    void argumentsThatAreNotAnObjectOrABadFunctionNameAreRefusedBeforeAnythingRuns() {
        CodeRunner runner = CodeRunnerTest.runner(Duration.ofSeconds(20), CodeLanguage.PYTHON);
        assertThatThrownBy(() -> SourceFunctions.call(runner, CodeLanguage.PYTHON, ROLL, "roll", emptyParameters(), "[1]",
                ToolProgress.NONE)).isInstanceOf(ToolException.class).hasMessageContaining("JSON object");
        assertThatThrownBy(() -> SourceFunctions.call(runner, CodeLanguage.PYTHON, ROLL, "os.system", emptyParameters(), "{}",
                ToolProgress.NONE)).isInstanceOf(ToolException.class).hasMessageContaining("not a function name");
    }

    private static ObjectNode emptyParameters() {
        return JsonMapper.builder().build().createObjectNode().put("type", "object");
    }
}
