package dev.engram.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client's answer to a server's form when no one can be asked: the defaults its schema declares. */
class McpElicitationTest {
    @Test
    void schemaDefaultsAcceptsTheFormWithEachPropertysDefaultAndNothingElse() {
        McpSchema.ElicitFormRequest form = McpSchema.ElicitRequest.builder("Your details?", Map.of("type", "object",
                "properties", Map.of(
                        "name", Map.of("type", "string", "default", "Ana"),
                        "age", Map.of("type", "integer", "default", 30),
                        "score", Map.of("type", "number", "default", 9.5),
                        "colour", Map.of("type", "string", "enum", List.of("red", "blue"), "default", "blue"),
                        "subscribe", Map.of("type", "boolean", "default", false),
                        "email", Map.of("type", "string")))).build();

        McpSchema.ElicitResult answer = McpElicitation.schemaDefaults().answer(form);

        assertThat(answer.action()).isEqualTo(McpSchema.ElicitResult.Action.ACCEPT);
        assertThat(answer.content()).containsExactlyInAnyOrderEntriesOf(Map.of("name", "Ana", "age", 30, "score", 9.5,
                "colour", "blue", "subscribe", false));
    }

    @Test
    void aFormWithoutPropertiesIsAcceptedEmpty() {
        McpSchema.ElicitResult answer = McpElicitation.schemaDefaults()
                .answer(McpSchema.ElicitRequest.builder("Go on?", Map.of("type", "object")).build());

        assertThat(answer.action()).isEqualTo(McpSchema.ElicitResult.Action.ACCEPT);
        assertThat(answer.content()).isEmpty();
    }
}
