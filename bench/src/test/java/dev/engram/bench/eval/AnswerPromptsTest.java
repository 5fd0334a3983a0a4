package dev.engram.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AnswerPromptsTest {
    @Test
    void aVerdictIsReadFromJsonAloneInProseOrInAFenceInAnyCase() throws Exception {
        assertThat(AnswerPrompts.verdict("{\"reasoning\": \"same date\", \"label\": \"CORRECT\"}")).isTrue();
        assertThat(AnswerPrompts.verdict("The answer names another city. {\"label\": \"wrong\"} Hope that helps.")).isFalse();
        assertThat(AnswerPrompts.verdict("```json\n{\"reasoning\": \"x\", \"label\": \" Correct \"}\n```")).isTrue();
        assertThat(AnswerPrompts.verdict("{\"reasoning\": \"a {brace}\"} then {\"label\": \"WRONG\"}")).isFalse();
    }

    @Test
    void aReplyWithoutALabelOrWithAnotherLabelIsAnErrorSayingWhat() {
        assertThatThrownBy(() -> AnswerPrompts.verdict("  ")).isInstanceOf(AnswerPrompts.ParseException.class)
                .hasMessage("the reply is empty");
        assertThatThrownBy(() -> AnswerPrompts.verdict("CORRECT")).isInstanceOf(AnswerPrompts.ParseException.class)
                .hasMessage("the reply holds no JSON object with a \"label\"; it begins: \"CORRECT\"");
        assertThatThrownBy(() -> AnswerPrompts.verdict("{\"label\": \"MAYBE\"}")).isInstanceOf(AnswerPrompts.ParseException.class)
                .hasMessage("the label must be \"CORRECT\" or \"WRONG\", got \"\"MAYBE\"\"");
        assertThatThrownBy(() -> AnswerPrompts.verdict("{\"label\": true}")).isInstanceOf(AnswerPrompts.ParseException.class)
                .hasMessageContaining("got \"true\"");
    }

    @Test
    void theQuestionListsItsMemoriesOldestFirstWithTheirDates() {
        SearchHit later = new SearchHit("12", SearchDomain.CONVERSATIONS, "Mel: I ran a charity race last Sunday.",
                Instant.parse("2023-05-25T13:14:00Z"), 0.9, Optional.empty(), Optional.empty());
        SearchHit earlier = new SearchHit("9", SearchDomain.CONVERSATIONS, "Caroline: I went to a support group yesterday.",
                Instant.parse("2023-05-08T13:56:00Z"), 0.5, Optional.empty(), Optional.empty());
        assertThat(AnswerPrompts.question(" When did Mel run? ", List.of(later, earlier))).isEqualTo("""
                Memories:
                - [8 May 2023, 1:56 PM] Caroline: I went to a support group yesterday.
                - [25 May 2023, 1:14 PM] Mel: I ran a charity race last Sunday.

                Question: When did Mel run?
                Answer:""");
        assertThat(AnswerPrompts.question("Who?", List.of())).startsWith("Memories:\n(none were found)\n");
        assertThat(AnswerPrompts.judge("When?", "7 May 2023", " ")).isEqualTo(
                "Question: When?\nGold answer: 7 May 2023\nGenerated answer: (empty)");
    }
}
