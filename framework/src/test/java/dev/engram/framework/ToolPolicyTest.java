package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ToolPolicyTest {
    @Test
    void allowAllPermitsEverything() {
        assertThat(ToolPolicy.allowAll().permits("anything")).isTrue();
    }

    @Test
    void emptyAllowListWithDenyListDeniesOnlyTheDenied() {
        ToolPolicy p = ToolPolicy.builder().deny("shell_*", "web_?etch").build();
        assertThat(p.permits("shell_exec")).isFalse();
        assertThat(p.permits("web_fetch")).isFalse();
        assertThat(p.permits("web_search")).isTrue();
        assertThat(p.permits("file_read")).isTrue();
    }

    @Test
    void allowListRestrictsAndDenyWins() {
        ToolPolicy p = ToolPolicy.builder().allow("memory_*", "search").deny("memory_delete").build();
        assertThat(p.permits("memory_save")).isTrue();
        assertThat(p.permits("search")).isTrue();
        assertThat(p.permits("searchx")).isFalse();
        assertThat(p.permits("memory_delete")).isFalse();
        assertThat(p.permits("shell_exec")).isFalse();
    }

    @Test
    void globCharactersOtherThanStarAndQuestionMarkAreLiteral() {
        ToolPolicy p = ToolPolicy.builder().allow("a.b", "c+").build();
        assertThat(p.permits("a.b")).isTrue();
        assertThat(p.permits("axb")).isFalse();
        assertThat(p.permits("c+")).isTrue();
        assertThat(p.permits("cc")).isFalse();
    }

    @Test
    void emptyGlobIsRejected() {
        assertThatThrownBy(() -> ToolPolicy.builder().allow("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a glob must not be null or empty");
    }

    @Test
    void approvalRuleNeedsAJsonPointer() {
        assertThatThrownBy(() -> ApprovalRule.autoApprove("x").whenArgument("command", "ls"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("argument conditions take a JSON Pointer such as \"/command\", got \"command\"");
    }
}
