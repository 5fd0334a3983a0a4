package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A tool's facts in one {@link ToolInfo}, and {@link DynamicTool#withTimeout} forwarding everything else. */
class ToolInfoAndDecoratorTest {
    record Note(String text) {
    }

    /** A typed tool with an approval preview. */
    static final class Writer implements AiTool<Note, String> {
        private static final ToolInfo INFO = ToolInfo.of("write_note", "Writes a note and returns it.", SafetyTier.SIDE_EFFECTING)
                .withTruncation(Truncation.KEEP_TAIL);

        @Override
        public ToolInfo info() {
            return INFO;
        }

        @Override
        public Class<Note> inputType() {
            return Note.class;
        }

        @Override
        public String execute(Note input, ToolContext context) {
            return "wrote " + input.text();
        }

        @Override
        public Optional<String> approvalPreview(Note input, ToolContext context) {
            return Optional.of("+ " + input.text());
        }
    }

    @Test
    void theInfoIsWhatTheToolReportsAndDefaultsAreStated() {
        Writer w = new Writer();
        assertThat(w.name()).isEqualTo("write_note");
        assertThat(w.safetyTier()).isEqualTo(SafetyTier.SIDE_EFFECTING);
        assertThat(w.timeout()).isEqualTo(ToolInfo.DEFAULT_TIMEOUT).isEqualTo(Duration.ofSeconds(30));
        assertThat(w.truncation()).isEqualTo(Truncation.KEEP_TAIL);
    }

    @Test
    void badFactsFailWhenTheToolIsDefinedSayingWhatToChange() {
        assertThatThrownBy(() -> ToolInfo.of("bad name", "Does things.", SafetyTier.READ_ONLY))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("bad name");
        assertThatThrownBy(() -> ToolInfo.of("ok", " ", SafetyTier.READ_ONLY))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("ok");
        assertThatThrownBy(() -> ToolInfo.of("ok", "Does things.", null))
                .isInstanceOf(ToolDefinitionException.class).hasMessage("Tool 'ok' has no safety tier; give it READ_ONLY, SIDE_EFFECTING or PRIVILEGED.");
        assertThatThrownBy(() -> ToolInfo.of("ok", "Does things.", SafetyTier.READ_ONLY).withTimeout(Duration.ZERO))
                .isInstanceOf(ToolDefinitionException.class).hasMessage("Tool 'ok' has timeout PT0S; give it a positive duration.");
    }

    @Test
    void withTimeoutChangesTheTimeoutAndForwardsEverythingElse() throws Exception {
        DynamicTool tool = DynamicTool.from(new Writer());
        DynamicTool longer = tool.withTimeout(Duration.ofMinutes(3));
        assertThat(longer.timeout()).isEqualTo(Duration.ofMinutes(3));
        assertThat(longer.name()).isEqualTo(tool.name());
        assertThat(longer.description()).isEqualTo(tool.description());
        assertThat(longer.parametersSchema()).isEqualTo(tool.parametersSchema());
        assertThat(longer.safetyTier()).isEqualTo(tool.safetyTier());
        assertThat(longer.truncation()).isEqualTo(Truncation.KEEP_TAIL);
        assertThat(longer).as("keeps the parsed-arguments fast path").isInstanceOf(ParsedArgumentsTool.class);
        assertThat(longer.withTimeout(Duration.ofSeconds(1))).isEqualTo(tool.withTimeout(Duration.ofSeconds(1)));
        assertThatThrownBy(() -> tool.withTimeout(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout of tool 'write_note' must be positive, got PT-1S");
    }

    @Test
    void anApprovalPromptOfARetimedToolStillShowsThePreview() {
        DynamicTool longer = DynamicTool.from(new Writer()).withTimeout(Duration.ofMinutes(3));
        List<ApprovalRequest> asked = new ArrayList<>();
        ToolContext ctx = ToolContext.builder().userId("ana").approvalHandler(request -> {
            asked.add(request);
            return CompletableFuture.completedFuture(ApprovalDecision.approve());
        }).build();
        ToolResult r = ToolExecutor.builder(ToolRegistry.create().register(longer)).approvalMode(ApprovalMode.ASK).build()
                .execute(ToolCall.of("write_note", "{\"text\": \"milk\"}"), ctx);
        assertThat(r.content()).isEqualTo("wrote milk");
        assertThat(asked).singleElement().extracting(ApprovalRequest::preview).isEqualTo(Optional.of("+ milk"));
    }

    /** A decorator forwards what a method added to {@link DynamicTool} later says too: ForwardingTool covers each. */
    @Test
    void forwardingToolForwardsEveryMethodOfDynamicToolButWithTimeout() {
        java.util.Set<String> forwarded = Arrays.stream(ForwardingTool.class.getDeclaredMethods()).filter(Method::isDefault)
                .map(ToolInfoAndDecoratorTest::signature).collect(Collectors.toSet());
        List<String> missing = Arrays.stream(DynamicTool.class.getDeclaredMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()) && !m.getName().equals("withTimeout"))
                .map(ToolInfoAndDecoratorTest::signature).filter(sig -> !forwarded.contains(sig)).toList();
        assertThat(missing).as("methods of DynamicTool ForwardingTool does not forward").isEmpty();
    }

    @Test
    void aRetimedToolKeepsWhatTheToolSaysOfItselfThatItDoesNotChange() throws Exception {
        DynamicTool inline = new ForwardingTool() {
            private final DynamicTool writer = DynamicTool.from(new Writer());

            @Override
            public DynamicTool delegate() {
                return writer;
            }

            @Override
            public boolean runsInline() {
                return true;
            }

            @Override
            public Optional<String> userMessageArgument() {
                return Optional.of("text");
            }
        };
        DynamicTool longer = inline.withTimeout(Duration.ofMinutes(3));
        assertThat(longer.runsInline()).isTrue();
        assertThat(longer.userMessageArgument()).contains("text");
        assertThat(longer.execute("{\"text\": \"milk\"}", ToolContext.builder().userId("ana").build())).isEqualTo("wrote milk");
    }

    private static String signature(Method m) {
        return m.getName() + Arrays.toString(m.getParameterTypes());
    }
}
