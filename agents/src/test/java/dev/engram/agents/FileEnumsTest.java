package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ApprovalMode;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MessageRole;
import org.junit.jupiter.api.Test;

/** An agent file's enum-like fields: an unknown value names the field and the values it takes, not Java's enum. */
class FileEnumsTest {
    private static String file(String agentExtra, String blockExtra, String role) {
        return """
                {"format": "engram-agent", "version": 1,
                 "agent": {"user_id": "ana", "id": "a1", "name": "a", "model": "test:echo"%s},
                 "blocks": [{"label": "human", "value": "x"%s}],
                 "messages": [{"role": "%s", "content": "hi"}]}""".formatted(agentExtra, blockExtra, role);
    }

    @Test
    void unknownValuesNameTheFieldAndTheAllowedValues() {
        assertThatThrownBy(() -> AgentFiles.parse(file(", \"approval_mode\": \"nonsense\"", "", "user"), "f.json"))
                .isInstanceOf(AgentException.class).hasMessageContaining("\"approval_mode\" is 'nonsense'")
                .hasMessageContaining(FileEnums.allowed(ApprovalMode.class)).hasMessageNotContaining("No enum constant");
        assertThatThrownBy(() -> AgentFiles.parse(file("", ", \"permission\": \"NONSENSE\"", "user"), "f.json"))
                .isInstanceOf(AgentException.class).hasMessageContaining("\"blocks.permission\" is 'NONSENSE'")
                .hasMessageContaining("read_only").hasMessageNotContaining("dev.engram");
        assertThatThrownBy(() -> AgentFiles.parse(file("", ", \"type\": \"nonsense\"", "user"), "f.json"))
                .isInstanceOf(AgentException.class).hasMessageContaining("\"blocks.type\"").hasMessageContaining("core");
        assertThatThrownBy(() -> AgentFiles.parse(file("", "", "narrator"), "f.json"))
                .isInstanceOf(AgentException.class).hasMessageContaining("\"messages.role\" is 'narrator'")
                .hasMessageContaining(FileEnums.allowed(MessageRole.class));
    }

    @Test
    void knownValuesReadInAnyCase() {
        assertThat(FileEnums.parse(MemoryPermission.class, "Read_Only", "permission")).isEqualTo(MemoryPermission.READ_ONLY);
        assertThat(AgentFiles.parse(file(", \"approval_mode\": \"AUTO\"", ", \"permission\": \"read_only\"", "user"), "f.json")
                .definition().approvalMode()).isEqualTo(ApprovalMode.AUTO);
    }
}
