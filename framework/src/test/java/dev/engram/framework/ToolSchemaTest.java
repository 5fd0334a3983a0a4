package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonTypeName;
import dev.engram.framework.TestTools.BlockOp;
import dev.engram.framework.TestTools.Order;
import dev.engram.framework.TestTools.ReadFile;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class ToolSchemaTest {
    private static ObjectNode schemaOf(Class<?> input) {
        return DynamicTool.from(AiTool.of("t", "A test tool.", input, SafetyTier.READ_ONLY, (in, c) -> "")).parametersSchema();
    }

    @Test
    void recordComponentsBecomeSnakeCasePropertiesWithDescriptions() {
        ObjectNode s = schemaOf(ReadFile.class);
        assertThat(s.path("type").asString()).isEqualTo("object");
        assertThat(s.path("properties").propertyNames()).containsExactly("path", "start_line", "encoding");
        assertThat(s.at("/properties/path/description").asString()).isEqualTo("Path of the file, relative to the workspace root.");
        assertThat(s.at("/properties/start_line/type").asString()).isEqualTo("integer");
        assertThat(s.path("additionalProperties").asBoolean(true)).isFalse();
    }

    @Test
    void optionalComponentsAreNotRequiredAndNotNullable() {
        ObjectNode s = schemaOf(ReadFile.class);
        assertThat(s.path("required")).extracting(JsonNode::asString).containsExactly("path");
        assertThat(s.toString()).doesNotContain("null");
    }

    @Test
    void enumsUseTheirJsonNames() {
        assertThat(schemaOf(ReadFile.class).at("/properties/encoding/enum"))
                .extracting(JsonNode::asString).containsExactly("utf-8", "ascii");
    }

    @Test
    void nestedRecordsAreInlinedWithoutRefs() {
        ObjectNode s = schemaOf(Order.class);
        assertThat(InputSchemas.containsKey(s, "$ref")).isFalse();
        assertThat(InputSchemas.containsKey(s, "$defs")).isFalse();
        JsonNode item = s.at("/properties/items/items");
        assertThat(item.path("type").asString()).isEqualTo("object");
        assertThat(item.path("required")).extracting(JsonNode::asString).containsExactlyInAnyOrder("name", "quantity");
        assertThat(item.path("additionalProperties").asBoolean(true)).isFalse();
    }

    @Test
    void sealedInputIsOneObjectWithAnOperationEnumAndTheUnionOfFields() {
        ObjectNode s = schemaOf(BlockOp.class);
        assertThat(s.at("/properties/operation/enum")).extracting(JsonNode::asString).containsExactly("append", "replace", "view");
        assertThat(s.at("/properties/operation/description").asString()).isEqualTo(
                "The operation to perform: append (append text to a block); replace (replace exact text in a block); "
                        + "view (show a block).");
        assertThat(s.path("properties").propertyNames()).containsExactly("operation", "label", "text", "old_text", "new_text");
        assertThat(s.path("required")).extracting(JsonNode::asString).containsExactly("operation");
        assertThat(s.at("/properties/label/description").asString()).isEqualTo("Block label.");
        assertThat(s.at("/properties/text/description").asString()).isEqualTo("Used by: append.");
        assertThat(s.at("/properties/old_text/description").asString()).isEqualTo("Used by: replace.");
    }

    sealed interface Conflicting permits One, Two {
    }

    record One(String value) implements Conflicting {
    }

    record Two(int value) implements Conflicting {
    }

    @Test
    void sharedFieldWithDifferentTypesIsRejected() {
        assertThatThrownBy(() -> schemaOf(Conflicting.class)).isInstanceOf(ToolDefinitionException.class)
                .hasMessage("Tool 't': field 'value' has different types in operations [one] and 'two'; "
                        + "give the fields distinct names or the same type.");
    }

    sealed interface Named permits Renamed, Plain {
    }

    @JsonTypeName("rename_it")
    record Renamed(String a) implements Named {
    }

    record Plain(String a) implements Named {
    }

    @Test
    void jsonTypeNameNamesAnOperation() {
        assertThat(schemaOf(Named.class).at("/properties/operation/enum")).extracting(JsonNode::asString)
                .containsExactly("rename_it", "plain");
    }

    record Node(String name, List<Node> children) {
    }

    @Test
    void recursiveInputIsRejected() {
        assertThatThrownBy(() -> schemaOf(Node.class)).isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining(Node.class.getName());
    }

    static final class NotARecord {
    }

    @Test
    void classInputIsRejected() {
        assertThatThrownBy(() -> schemaOf(NotARecord.class)).isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("neither a record nor a sealed interface of records");
    }

    @Test
    void invalidNamesAndBlankDescriptionsAreRejected() {
        assertThatThrownBy(() -> AiTool.of("bad name", "d", ReadFile.class, SafetyTier.READ_ONLY, (in, c) -> ""))
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessage("Tool name 'bad name' is invalid: use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'.");
        assertThatThrownBy(() -> AiTool.of("x".repeat(65), "d", ReadFile.class, SafetyTier.READ_ONLY, (in, c) -> ""))
                .isInstanceOf(ToolDefinitionException.class);
        assertThatThrownBy(() -> AiTool.of("ok", " ", ReadFile.class, SafetyTier.READ_ONLY, (in, c) -> ""))
                .isInstanceOf(ToolDefinitionException.class).hasMessageStartingWith("Tool 'ok' has no description");
    }

    @Test
    void snakeCaseMatchesJackson() {
        assertThat(InputSchemas.snakeCase("ReadLines")).isEqualTo("read_lines");
        assertThat(InputSchemas.snakeCase("View")).isEqualTo("view");
    }
}
