package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ToolDefinitionException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Schemas derived from Python source as Letta derives them, on the kinds of functions Letta's guide and tests use. */
class PythonSchemasTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static JsonNode json(String text) {
        return JSON.readTree(text);
    }

    @Test
    void aFunctionWithGoogleArgsGetsTypedDescribedPropertiesAndItsRequiredOnes() {
        String source = """
                from typing import List, Optional

                def lookup_shipment(
                    shipment_id: int,
                    recipient: str,
                    parcels: List[str],
                    notes: dict,
                    weight: float,
                    extra: Optional[dict],
                ):
                    \"""
                    Look up where a shipment is (by its number).

                    Args:
                        shipment_id (int): The shipment's number.
                        recipient (str): Who receives it.
                        parcels (List[str]): The parcel codes in it.
                        notes (dict): Notes per parcel.
                        weight (float): Its weight in kilograms.
                        extra (Optional[dict]): Anything else known about it.

                    Returns:
                        str: Where it is.
                    \"""
                    return f"Shipment {shipment_id} is in Porto."
                """;
        assertThat(PythonSchemas.derive(source)).isEqualTo(json("""
                {"name": "lookup_shipment",
                 "description": "Look up where a shipment is (by its number).",
                 "parameters": {"type": "object",
                   "properties": {
                     "shipment_id": {"type": "integer", "description": "The shipment's number."},
                     "recipient": {"type": "string", "description": "Who receives it."},
                     "parcels": {"type": "array", "items": {"type": "string"}, "description": "The parcel codes in it."},
                     "notes": {"type": "object", "description": "Notes per parcel."},
                     "weight": {"type": "number", "description": "Its weight in kilograms."},
                     "extra": {"type": "object", "description": "Anything else known about it."}},
                   "required": ["shipment_id", "recipient", "parcels", "notes", "weight"]}}
                """));
    }

    @Test
    void aFunctionWithoutArgumentsIsDescribedByItsShortAndLongDescription() {
        String source = """
                def roll_d12():
                    \"""
                    Roll a twelve-sided die.

                    Picks a number from 1 to 12,
                    each as likely as the others.

                    Returns:
                        str: What came up.
                    \"""
                    import random
                    return f"You rolled {random.randint(1, 12)}"
                """;
        assertThat(PythonSchemas.derive(source)).isEqualTo(json("""
                {"name": "roll_d12",
                 "description": "Roll a twelve-sided die.\\n\\nPicks a number from 1 to 12,\\neach as likely as the others.",
                 "parameters": {"type": "object", "properties": {}, "required": []}}
                """));
    }

    @Test
    void defaultsOptionalsLiteralsDictsTuplesAndUnionsWithNoneAreTypedAndReservedParametersLeftOut() {
        String source = """
                import typing
                from typing import Dict, Literal, Optional, Tuple

                def helper(x):
                    return x

                def plan_trip(self, agent_state, city: str, days: int = 3, mode: Literal["train", "car"] = "train",
                              budget: Optional[float] = None, stops: typing.List[int] = [], scores: Dict[str, int] = {},
                              start: Tuple[int, int] = (0, 0), note: str | None = None, *rest, **more) -> str:
                    '''Plan a trip.

                    Args:
                        city: Where to go.
                        days (int, optional): How many days;
                            at least one.
                        mode: How to travel.
                        budget: The most to spend.
                        stops: Stop numbers.
                        scores: A score per place.
                        start: Where to start, as x and y.
                        note: Anything to remember.

                    Examples:
                        plan_trip("Porto")
                    '''
                    def inner(y: int):
                        '''Not the tool.'''
                    return "planned"
                """;
        JsonNode schema = PythonSchemas.derive(source);
        assertThat(schema.path("name").asString()).isEqualTo("plan_trip");
        assertThat(schema.path("description").asString()).isEqualTo("Plan a trip.\n\nExamples:\n        plan_trip(\"Porto\")");
        JsonNode p = schema.path("parameters").path("properties");
        assertThat(p.propertyNames()).containsExactly("city", "days", "mode", "budget", "stops", "scores", "start", "note");
        assertThat(p.path("days")).isEqualTo(json("{\"type\":\"integer\",\"description\":\"How many days;\\nat least one.\"}"));
        assertThat(p.path("mode")).isEqualTo(json("{\"type\":\"string\",\"enum\":[\"train\",\"car\"],\"description\":\"How to travel.\"}"));
        assertThat(p.path("budget")).isEqualTo(json("{\"type\":\"number\",\"description\":\"The most to spend.\"}"));
        assertThat(p.path("stops")).isEqualTo(json("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"description\":\"Stop numbers.\"}"));
        assertThat(p.path("scores")).isEqualTo(json("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"},"
                + "\"description\":\"A score per place.\"}"));
        assertThat(p.path("start")).isEqualTo(json("{\"type\":\"array\",\"prefixItems\":[{\"type\":\"integer\"},{\"type\":\"integer\"}],"
                + "\"minItems\":2,\"maxItems\":2,\"description\":\"Where to start, as x and y.\"}"));
        assertThat(p.path("note")).isEqualTo(json("{\"type\":\"string\",\"description\":\"Anything to remember.\"}"));
        assertThat(schema.path("parameters").path("required")).isEqualTo(json("[\"city\"]"));
    }

    @Test
    void theFunctionIsChosenByNameOrIsTheLastAtTopLevelAndADefInAStringIsNone() {
        String source = """
                BANNER = '''
                def fake(a: int):
                    pass
                '''

                def first(a: int) -> int:
                    \"""First.\n\n    Args:\n        a: A number.\n    \"""
                    return a

                async def second() -> str:
                    "Second, on one line."
                    return "b"
                """;
        assertThat(PythonSchemas.functions(source)).containsExactly("first", "second");
        assertThat(PythonSchemas.derive(source).path("name").asString()).isEqualTo("second");
        assertThat(PythonSchemas.derive(source).path("description").asString()).isEqualTo("Second, on one line.");
        assertThat(PythonSchemas.derive(source, "first").path("parameters").path("properties").path("a").path("description")
                .asString()).isEqualTo("A number.");
        assertThatThrownBy(() -> PythonSchemas.derive(source, "fake")).isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("no top-level function named 'fake'").hasMessageContaining("[first, second]");
    }

    @Test
    void whatLettaRefusesIsRefusedWithASentenceNamingTheFunctionAndTheWayOut() {
        assertThatThrownBy(() -> PythonSchemas.derive("x = 1\n")).isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("defines no function");
        assertThatThrownBy(() -> PythonSchemas.derive("def f(a: int):\n    return a\n"))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("function 'f'")
                .hasMessageContaining("has no docstring").hasMessageContaining("give the tool's json_schema");
        assertThatThrownBy(() -> PythonSchemas.derive("def f(a):\n    '''F.\n\n    Args:\n        a: A.\n    '''\n"))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("parameter 'a' lacks a type annotation");
        assertThatThrownBy(() -> PythonSchemas.derive("def f(a: int, b: int):\n    '''F.\n\n    Args:\n        a: A.\n    '''\n"))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("parameter 'b' lacks a description");
        assertThatThrownBy(() -> PythonSchemas.derive("from typing import Union\ndef f(a: Union[int, str]):\n    '''F.\n\n"
                + "    Args:\n        a: A.\n    '''\n"))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("general Union");
        assertThatThrownBy(() -> PythonSchemas.derive("class Step(BaseModel):\n    name: str\n\ndef f(steps: list[Step]):\n"
                + "    '''F.\n\n    Args:\n        steps: The steps.\n    '''\n"))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("type 'Step' has no corresponding JSON schema type")
                .hasMessageContaining("Pydantic");
        assertThatThrownBy(() -> PythonSchemas.derive("def f(a: Tuple[int, ...]):\n    '''F.\n\n    Args:\n        a: A.\n    '''\n"))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("variable-length");
        assertThatThrownBy(() -> PythonSchemas.derive("def f(a: int:\n    pass\n")).isInstanceOf(ToolDefinitionException.class);
    }
}
