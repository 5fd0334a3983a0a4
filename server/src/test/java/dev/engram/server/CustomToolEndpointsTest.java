package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Letta's custom tools on a server without code execution: created from Python source (the schema derived from the
 * signature and docstring) or with a given schema, upserted, modified, counted, searched, deleted, attached to agents,
 * each user's own; running one is refused naming {@code --code}. {@link CustomToolRunTest} runs them.
 */
class CustomToolEndpointsTest {
    static final String ROLL = """
            def roll_dice(sides: int, times: int = 1) -> str:
                \"""
                Roll dice and add them up.

                Args:
                    sides (int): Sides of each die.
                    times (int): How many dice to roll.

                Returns:
                    str: The total.
                \"""
                import random
                total = sum(random.randint(1, sides) for _ in range(times))
                print("rolled", total)
                return f"You rolled {total}"
            """;

    @TempDir
    Path dir;
    ServerFixture fx;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private int count(String key) {
        return fx.get(key, "/v1/tools/count").json().asInt();
    }

    @Test
    void aToolIsCreatedFromPythonSourceRetrievedListedModifiedUpsertedCountedAndDeleted() {
        int before = count(fx.ana);
        ServerFixture.Response created = fx.post(fx.ana, "/v1/tools/", obj("source_code", ROLL, "tags", List.of("games"),
                "pip_requirements", List.of(obj("name", "numpy"))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        JsonNode tool = created.json();
        String id = tool.path("id").asString();
        assertThat(id).matches("tool-[0-9a-f-]{36}");
        assertThat(tool.path("name").asString()).isEqualTo("roll_dice");
        assertThat(tool.path("tool_type").asString()).isEqualTo("custom");
        assertThat(tool.path("source_type").asString()).isEqualTo("python");
        assertThat(tool.path("description").asString()).isEqualTo("Roll dice and add them up.");
        assertThat(tool.path("json_schema").path("parameters")).isEqualTo(ServerFixture.JSON.readTree("""
                {"type":"object","properties":{"sides":{"type":"integer","description":"Sides of each die."},
                 "times":{"type":"integer","description":"How many dice to roll."}},"required":["sides"]}"""));
        assertThat(tool.path("return_char_limit").asInt()).isEqualTo(50_000);
        assertThat(tool.path("pip_requirements").path(0).path("name").asString()).isEqualTo("numpy");
        assertThat(count(fx.ana)).isEqualTo(before + 1);

        assertThat(fx.get(fx.ana, "/v1/tools/" + id).json()).isEqualTo(tool);
        assertThat(fx.get(fx.ana, "/v1/tools/?name=roll_dice").json().path(0).path("id").asString()).isEqualTo(id);
        assertThat(fx.get(fx.ana, "/v1/tools/count?tool_types=custom").json().asInt()).isEqualTo(1);

        ServerFixture.Response changed = fx.patch(fx.ana, "/v1/tools/" + id, obj("description", "Rolls dice.",
                "tags", List.of("games", "luck"), "return_char_limit", 100, "default_requires_approval", true));
        assertThat(changed.status()).as(changed.text()).isEqualTo(200);
        assertThat(changed.json().path("description").asString()).isEqualTo("Rolls dice.");
        assertThat(changed.json().path("json_schema").path("description").asString()).isEqualTo("Rolls dice.");
        assertThat(changed.json().path("return_char_limit").asInt()).isEqualTo(100);
        assertThat(changed.json().path("default_requires_approval").asBoolean()).isTrue();
        assertThat(changed.json().path("source_code").asString()).isEqualTo(ROLL);

        ServerFixture.Response upserted = fx.call("PUT", fx.ana, "/v1/tools/", obj("source_code", ROLL.replace("add them up",
                "sum them")));
        assertThat(upserted.status()).as(upserted.text()).isEqualTo(200);
        assertThat(upserted.json().path("id").asString()).isEqualTo(id);
        assertThat(upserted.json().path("description").asString()).isEqualTo("Roll dice and sum them.");
        assertThat(count(fx.ana)).isEqualTo(before + 1);

        ServerFixture.Response deleted = fx.delete(fx.ana, "/v1/tools/" + id);
        assertThat(deleted.status()).as(deleted.text()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/tools/" + id).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ana, "/v1/tools/" + id).status()).isEqualTo(404);
        assertThat(count(fx.ana)).isEqualTo(before);
    }

    @Test
    void aGivenSchemaIsTakenAsGivenAndAJavaScriptToolNeedsOne() {
        Object schema = obj("name", "greet", "description", "Greets someone.", "parameters", obj("type", "object",
                "properties", obj("name", obj("type", "string")), "required", List.of("name")));
        ServerFixture.Response js = fx.post(fx.ana, "/v1/tools/", obj("source_code",
                "function greet(name) { return 'Hello, ' + name; }", "source_type", "javascript", "json_schema", schema));
        assertThat(js.status()).as(js.text()).isEqualTo(200);
        assertThat(js.json().path("json_schema")).isEqualTo(ServerFixture.JSON.valueToTree(schema));
        assertThat(js.json().path("description").asString()).isEqualTo("Greets someone.");
        ServerFixture.Response noSchema = fx.post(fx.ana, "/v1/tools/", obj("source_code",
                "function wave() { return 'hi'; }", "source_type", "javascript"));
        assertThat(noSchema.status()).isEqualTo(400);
        assertThat(noSchema.detail()).contains("needs its json_schema");
    }

    @Test
    void badSourceSchemasAndDuplicatesAreRefusedAndNothingIsStored() {
        assertThat(fx.post(fx.ana, "/v1/tools/", obj("source_code", ROLL)).status()).isEqualTo(200);
        int before = count(fx.ana);
        ServerFixture.Response undocumented = fx.post(fx.ana, "/v1/tools/", obj("source_code",
                "def add(a: int, b: int):\n    return a + b\n"));
        assertThat(undocumented.status()).isEqualTo(400);
        assertThat(undocumented.detail()).contains("function 'add'").contains("no docstring").contains("json_schema");
        ServerFixture.Response untyped = fx.post(fx.ana, "/v1/tools/", obj("source_code",
                "def add(a, b):\n    '''Adds.\n\n    Args:\n        a: One.\n        b: Two.\n    '''\n    return a + b\n"));
        assertThat(untyped.status()).isEqualTo(400);
        assertThat(untyped.detail()).contains("parameter 'a' lacks a type annotation");
        ServerFixture.Response badSchema = fx.post(fx.ana, "/v1/tools/", obj("source_code", "def f():\n    return 1\n",
                "json_schema", obj("name", "f", "parameters", obj("type", 5))));
        assertThat(badSchema.status()).isEqualTo(400);
        assertThat(badSchema.detail()).contains("schema");
        ServerFixture.Response misnamed = fx.post(fx.ana, "/v1/tools/", obj("source_code", "def f():\n    return 1\n",
                "json_schema", obj("name", "g", "parameters", obj("type", "object"))));
        assertThat(misnamed.status()).isEqualTo(400);
        assertThat(misnamed.detail()).contains("'g'");
        assertThat(fx.post(fx.ana, "/v1/tools/", obj("description", "no source")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/tools/", obj("source_code", ROLL, "return_char_limit", 0)).status()).isEqualTo(422);
        ServerFixture.Response typescript = fx.post(fx.ana, "/v1/tools/", obj("source_code", "function f(): number { return 1 }",
                "source_type", "typescript", "json_schema", obj("name", "f")));
        assertThat(typescript.status()).isEqualTo(400);
        assertThat(typescript.detail()).contains("TypeScript");
        ServerFixture.Response duplicate = fx.post(fx.ana, "/v1/tools/", obj("source_code", ROLL));
        assertThat(duplicate.status()).isEqualTo(409);
        assertThat(duplicate.detail()).contains("'roll_dice'");
        ServerFixture.Response builtin = fx.post(fx.ana, "/v1/tools/", obj("source_code",
                "def send_message(message: str):\n    '''Sends.\n\n    Args:\n        message: The text.\n    '''\n"));
        assertThat(builtin.status()).isEqualTo(409);
        assertThat(builtin.detail()).contains("own tools");
        assertThat(count(fx.ana)).isEqualTo(before);
        String id = fx.get(fx.ana, "/v1/tools/?name=roll_dice").json().path(0).path("id").asString();
        ServerFixture.Response badPatch = fx.patch(fx.ana, "/v1/tools/" + id, obj("source_code", "def roll_dice(sides):\n    pass\n"));
        assertThat(badPatch.status()).isEqualTo(400);
        assertThat(fx.get(fx.ana, "/v1/tools/" + id).json().path("source_code").asString()).isEqualTo(ROLL);
    }

    @Test
    void anotherUsersKeyFindsNoneOfTheToolsAndChangesNothing() {
        String id = fx.post(fx.ana, "/v1/tools/", obj("source_code", ROLL)).json().path("id").asString();
        assertThat(fx.get(fx.ben, "/v1/tools/" + id).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/tools/" + id, obj("description", "mine")).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, "/v1/tools/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/tools/?name=roll_dice").json()).isEmpty();
        assertThat(fx.get(fx.ben, "/v1/tools/count?tool_types=custom").json().asInt()).isZero();
        String bens = fx.agent(fx.ben, "bens");
        assertThat(fx.patch(fx.ben, "/v1/agents/" + bens + "/tools/attach/" + id, obj()).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/tools/", obj("source_code", ROLL, "user_id", "ana")).status()).isEqualTo(403);
        ServerFixture.Response own = fx.post(fx.ben, "/v1/tools/", obj("source_code", ROLL));
        assertThat(own.status()).as("names are per user").isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/tools/" + id).json().path("description").asString()).isEqualTo("Roll dice and add them up.");
    }

    @Test
    void aToolAttachesByItsIdIsListedWithTheAgentAndIsDetachedWhenDeleted() {
        String id = fx.post(fx.ana, "/v1/tools/", obj("source_code", ROLL)).json().path("id").asString();
        String agent = fx.agent(fx.ana, "player");
        ServerFixture.Response attached = fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/attach/" + id, obj());
        assertThat(attached.status()).as(attached.text()).isEqualTo(200);
        JsonNode tools = fx.get(fx.ana, "/v1/agents/" + agent + "/tools?limit=100").json();
        assertThat(tools.valueStream().filter(t -> t.path("id").asString().equals(id)).count()).isEqualTo(1);
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "second", "tool_ids", List.of(id)));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        assertThat(created.json().path("tools").valueStream().map(t -> t.path("name").asString())).contains("roll_dice");

        ServerFixture.Response run = fx.post(fx.ana, "/v1/agents/" + agent + "/tools/roll_dice/run", obj("args", obj("sides", 6)));
        assertThat(run.status()).isEqualTo(403);
        assertThat(run.detail()).contains("--code");
        ServerFixture.Response builtin = fx.post(fx.ana, "/v1/agents/" + agent + "/tools/core_memory_append/run",
                obj("args", obj("label", "human", "content", "Likes dice.")));
        if (fx.get(fx.ana, "/v1/agents/" + agent).json().path("tools").valueStream()
                .anyMatch(t -> t.path("name").asString().equals("core_memory_append"))) {
            assertThat(builtin.status()).as(builtin.text()).isEqualTo(200);
            assertThat(builtin.json().path("status").asString()).isEqualTo("success");
        }
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/tools/not_attached/run", obj()).status()).isEqualTo(404);

        assertThat(fx.delete(fx.ana, "/v1/tools/" + id).status()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json().path("tools").valueStream()
                .map(t -> t.path("name").asString())).doesNotContain("roll_dice");
    }

    @Test
    void aToolRenamedByNewSourceIsRenamedInTheAgentsThatHaveIt() {
        String id = fx.post(fx.ana, "/v1/tools/", obj("source_code", ROLL)).json().path("id").asString();
        String agent = fx.agent(fx.ana, "player");
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/attach/" + id, obj()).status()).isEqualTo(200);
        ServerFixture.Response renamed = fx.patch(fx.ana, "/v1/tools/" + id, obj("source_code", ROLL.replace("roll_dice", "throw_dice")));
        assertThat(renamed.status()).as(renamed.text()).isEqualTo(200);
        assertThat(renamed.json().path("name").asString()).isEqualTo("throw_dice");
        assertThat(renamed.json().path("json_schema").path("name").asString()).isEqualTo("throw_dice");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json().path("tools").valueStream().map(t -> t.path("name").asString()))
                .contains("throw_dice").doesNotContain("roll_dice");
    }

    @Test
    void runningSourceWithoutCodeExecutionIsRefusedNamingTheFlag() {
        ServerFixture.Response run = fx.post(fx.ana, "/v1/tools/run", obj("source_code", ROLL, "args", obj("sides", 6)));
        assertThat(run.status()).isEqualTo(403);
        assertThat(run.detail()).contains("--code").contains("did not run");
        assertThat(fx.post(fx.ana, "/v1/tools/run", obj("source_code", ROLL)).status()).as("args are required").isEqualTo(422);
    }

    @Test
    void searchFindsToolsByTheirWordsTypesAndTags() {
        fx.post(fx.ana, "/v1/tools/", obj("source_code", ROLL, "tags", List.of("games")));
        JsonNode hits = fx.post(fx.ana, "/v1/tools/search", obj("query", "dice", "tool_types", List.of("custom"))).json();
        assertThat(hits).hasSize(1);
        assertThat(hits.path(0).path("tool").path("name").asString()).isEqualTo("roll_dice");
        assertThat(hits.path(0).path("combined_score").asDouble()).isEqualTo(1.0);
        assertThat(fx.post(fx.ana, "/v1/tools/search", obj("tags", List.of("games"))).json()).hasSize(1);
        assertThat(fx.post(fx.ana, "/v1/tools/search", obj("query", "dice", "tags", List.of("work"))).json()).isEmpty();
        assertThat(fx.post(fx.ana, "/v1/tools/search", obj("limit", 0)).status()).isEqualTo(422);
        assertThat(fx.post(fx.ben, "/v1/tools/search", obj("query", "dice", "tool_types", List.of("custom"))).json()).isEmpty();
    }
}
