package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.TestTools.BlockOp;
import dev.engram.framework.TestTools.Order;
import dev.engram.framework.TestTools.ReadFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class ToolFormatTest {
    private ToolRegistry registry;

    @BeforeEach
    void setUp() {
        registry = ToolRegistry.create()
                .register(AiTool.of("file_read", "Reads a file.", ReadFile.class, SafetyTier.READ_ONLY, (in, c) -> ""))
                .register(AiTool.of("block", "Edits a block.", BlockOp.class, SafetyTier.SIDE_EFFECTING, (in, c) -> ""))
                .register(AiTool.of("order", "Orders.", Order.class, SafetyTier.PRIVILEGED, (in, c) -> ""));
    }

    private static List<String> keys(JsonNode node) {
        List<String> all = new ArrayList<>();
        collectKeys(node, all);
        return all;
    }

    private static void collectKeys(JsonNode node, List<String> out) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                out.add(e.getKey());
                collectKeys(e.getValue(), out);
            }
        } else if (node.isArray()) {
            node.forEach(n -> collectKeys(n, out));
        }
    }

    @Test
    void openAiFormat() {
        ArrayNode tools = registry.toolsJson(ToolFormat.OPENAI);
        assertThat(tools).hasSize(3);
        JsonNode read = tools.get(1);
        assertThat(read.path("type").asString()).isEqualTo("function");
        assertThat(read.at("/function/name").asString()).isEqualTo("file_read");
        assertThat(read.at("/function/description").asString()).isEqualTo("Reads a file.");
        assertThat(read.at("/function/parameters/required")).extracting(JsonNode::asString).containsExactly("path");
        assertThat(read.at("/function/parameters/properties/encoding/enum")).hasSize(2);
        assertThat(keys(tools)).doesNotContain("$ref", "$defs", "definitions", "$schema");
    }

    @Test
    void anthropicFormat() {
        ArrayNode tools = registry.toolsJson(ToolFormat.ANTHROPIC);
        JsonNode block = tools.get(0);
        assertThat(block.propertyNames()).containsExactly("name", "description", "input_schema");
        assertThat(block.at("/input_schema/properties/operation/enum")).extracting(JsonNode::asString)
                .containsExactly("append", "replace", "view");
        assertThat(block.at("/input_schema/required")).extracting(JsonNode::asString).containsExactly("operation");
        assertThat(keys(tools)).doesNotContain("$ref", "$defs");
    }

    @Test
    void geminiFormatIsOneToolOfFunctionDeclarationsInTheOpenApiSubset() {
        ArrayNode tools = registry.toolsJson(ToolFormat.GEMINI);
        assertThat(tools).hasSize(1);
        JsonNode declarations = tools.get(0).path("functionDeclarations");
        assertThat(declarations).hasSize(3);
        JsonNode order = declarations.get(2);
        assertThat(order.path("name").asString()).isEqualTo("order");
        assertThat(order.at("/parameters/properties/items/items/required")).extracting(JsonNode::asString)
                .containsExactlyInAnyOrder("name", "quantity");
        assertThat(keys(tools)).doesNotContain("additionalProperties", "$ref", "$defs", "$schema", "uniqueItems", "const");
        assertThat(declarations.get(1).at("/parameters/properties/encoding/enum")).hasSize(2);
    }

    @Test
    void geminiSchemaTurnsNullableTypesAndConstIntoItsOwnForms() {
        ObjectNode schema = (ObjectNode) Json.MAPPER.readTree("""
                {"type":"object","additionalProperties":false,"$schema":"x",
                 "properties":{"a":{"type":["string","null"],"const":"k"},
                               "properties":{"type":"string","title":"a property called properties"}}}""");
        ObjectNode g = ToolDefinition.toGeminiSchema(schema);
        assertThat(g).isEqualTo(Json.MAPPER.readTree(
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"nullable\":true,\"enum\":[\"k\"]},"
                + "\"properties\":{\"type\":\"string\",\"title\":\"a property called properties\"}}}"));
    }

    @Test
    void mcpFormatCarriesHintsFromTheSafetyTier() {
        ArrayNode tools = registry.toolsJson(ToolFormat.MCP);
        assertThat(tools.get(0).path("inputSchema").isObject()).isTrue();
        assertThat(tools.get(0).at("/annotations/readOnlyHint").asBoolean()).isFalse();
        assertThat(tools.get(0).at("/annotations/destructiveHint").asBoolean()).isFalse();
        assertThat(tools.get(1).at("/annotations/readOnlyHint").asBoolean()).isTrue();
        assertThat(tools.get(2).at("/annotations/destructiveHint").asBoolean()).isTrue();
    }

    @Test
    void policyFiltersTheDefinitions() {
        ToolPolicy policy = ToolPolicy.builder().deny("order", "block").build();
        assertThat(registry.toolsJson(ToolFormat.ANTHROPIC, policy)).extracting(n -> n.path("name").asString())
                .containsExactly("file_read");
        assertThat(registry.toolsJson(ToolFormat.GEMINI, ToolPolicy.builder().allow("none").build())).isEmpty();
    }

    @Test
    void definitionsAreCopiesCallersCannotCorrupt() {
        ToolDefinition def = registry.definitions().get(1);
        def.parameters().put("type", "array");
        assertThat(registry.definitions().get(1).parameters().path("type").asString()).isEqualTo("object");
    }

    /** Not an assertion of content: prints every format, so a reviewer can read what a model sees. */
    @Test
    void printDefinitions() {
        for (ToolFormat f : ToolFormat.values()) {
            System.out.println(f + ":\n" + registry.toolsJson(f).toPrettyString());
        }
        assertThat(ToolFormat.values()).hasSize(4);
    }
}
