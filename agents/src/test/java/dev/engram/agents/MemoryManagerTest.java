package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.JobStatus;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Note;
import dev.engram.memory.NotFoundException;
import dev.engram.memory.Scope;
import dev.engram.memory.MemoryLimits;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link MemoryManager#add} with a scripted model: every shape of answer, merging, raw mode, scopes and bad input. */
class MemoryManagerTest {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<MemoryMessage> MOVE = List.of(MemoryMessage.user("Hi! I moved from Lisbon to Porto last month."),
            MemoryMessage.assistant("Nice, how do you like it?"), MemoryMessage.user("Love it. I'm vegetarian, by the way."));

    private final MemoryStore store = MemoryStore.inMemory();

    @AfterEach
    void close() {
        store.close();
    }

    static ScriptedChatModel.Turn says(String text) {
        return new ScriptedChatModel.Turn(text, List.of(), List.of());
    }

    static ScriptedChatModel model(ScriptedChatModel.Turn... turns) {
        return ScriptedChatModel.of(List.of(turns));
    }

    private AddResult add(ScriptedChatModel model, MemoryScope scope) {
        try (MemoryManager memory = MemoryManager.builder(store).model(model).build()) {
            return memory.add(MOVE, scope).await(WAIT);
        }
    }

    private List<String> notes(String user) {
        return store.notes().list(user, 0, 100).stream().map(Note::content).toList();
    }

    @Test
    void cleanJsonFactsBecomeTheUsersNotesLinkedToTheirMessagesTheJobAndTheModel() {
        AddResult result = add(model(says("""
                {"facts": [{"text": "The user moved from Lisbon to Porto.", "messages": [0]},
                           {"text": "The user is vegetarian.", "messages": [2]}]}""")), MemoryScope.user("ana"));
        assertThat(result.status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(result.succeeded()).isTrue();
        assertThat(result.total()).isEqualTo(2);
        assertThat(result.stored()).extracting(AddResult.Fact::text)
                .containsExactly("The user moved from Lisbon to Porto.", "The user is vegetarian.");
        assertThat(notes("ana")).containsExactlyInAnyOrder("The user moved from Lisbon to Porto.", "The user is vegetarian.");
        Note porto = store.notes().get("ana", result.stored().getFirst().memoryId().orElseThrow()).orElseThrow();
        assertThat(porto.metadata().get("job_id")).contains(result.jobId());
        assertThat(porto.metadata().get("messages")).contains(List.of(0));
        assertThat(porto.metadata().get("roles")).contains(List.of("user"));
        assertThat(porto.metadata().get("model")).contains("script:inline");
        assertThat(store.jobs().get("ana", result.jobId()).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
    }

    @Test
    void jsonWrappedInProseOrACodeFenceIsRead() {
        AddResult prose = add(model(says("Sure! Here is what I found: {\"facts\": [\"The user lives in Porto.\"]} Hope it helps.")),
                MemoryScope.user("ana"));
        AddResult fenced = add(model(says("Facts:\n```json\n{\"facts\": [{\"text\": \"The user is vegetarian.\"}]}\n```")),
                MemoryScope.user("ana"));
        assertThat(prose.stored()).as(prose.toString()).extracting(AddResult.Fact::text).containsExactly("The user lives in Porto.");
        assertThat(fenced.stored()).extracting(AddResult.Fact::text).containsExactly("The user is vegetarian.");
        assertThat(notes("ana")).hasSize(2);
    }

    @Test
    void jsonInsideTheReasoningIsReadWhenTheTextHasNone() {
        ScriptedChatModel model = model(new ScriptedChatModel.Turn("", "The facts are {\"facts\": [\"The user lives in Porto.\"]}",
                List.of(), List.of()));
        AddResult result = add(model, MemoryScope.user("ana"));
        assertThat(result.stored()).extracting(AddResult.Fact::text).containsExactly("The user lives in Porto.");
        assertThat(model.played()).isEqualTo(1);
    }

    @Test
    void garbageIsSentBackWithItsErrorAndTheSecondAnswerIsStored() {
        ScriptedChatModel model = model(says("I think the user likes Porto!"),
                new ScriptedChatModel.Turn("{\"facts\": [\"The user likes Porto.\"]}", List.of(),
                        List.of("could not be read", "holds no JSON object")));
        AddResult result = add(model, MemoryScope.user("ana"));
        assertThat(result.succeeded()).isTrue();
        assertThat(notes("ana")).containsExactly("The user likes Porto.");
        assertThat(model.played()).isEqualTo(2);
    }

    @Test
    void garbageTwiceFailsTheJobWithTheParseErrorAndStoresNothing() {
        ScriptedChatModel model = model(says("no idea"), says("{\"memories\": \"none\"}"));
        AddResult result = add(model, MemoryScope.user("ana"));
        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.error()).contains("could not be read").contains("no \"facts\" list");
        assertThat(result.facts()).isEmpty();
        assertThat(notes("ana")).isEmpty();
        assertThat(store.jobs().get("ana", result.jobId()).orElseThrow().error()).isEqualTo(result.error());
    }

    @Test
    void aNearDuplicateIsMergedIntoTheMemoryItMatchesNotStoredAgain() {
        Note held = store.notes().save("ana", "The user is vegetarian.");
        AddResult result = add(model(says("""
                {"facts": ["the user is Vegetarian", "The user moved from Lisbon to Porto.",
                           "The user moved from Lisbon to Porto recently."]}""")), MemoryScope.user("ana"));
        assertThat(result.merged()).extracting(AddResult.Fact::text)
                .containsExactly("the user is Vegetarian", "The user moved from Lisbon to Porto recently.");
        assertThat(result.merged().getFirst().memoryId()).contains(held.id());
        assertThat(result.merged().getFirst().matched()).isEqualTo("The user is vegetarian.");
        assertThat(result.merged().get(1).matched()).isEqualTo("The user moved from Lisbon to Porto.");
        assertThat(result.stored()).extracting(AddResult.Fact::text).containsExactly("The user moved from Lisbon to Porto.");
        assertThat(notes("ana")).hasSize(2);
    }

    @Test
    void rawModeStoresEachMessagesTextWithoutAModel() {
        try (MemoryManager memory = MemoryManager.builder(store).build()) {
            AddResult result = memory.add(MOVE, MemoryScope.user("ana"), AddOptions.defaults().withRaw(true)).await(WAIT);
            assertThat(result.stored()).hasSize(3);
        }
        assertThat(notes("ana")).containsExactlyInAnyOrderElementsOf(MOVE.stream().map(MemoryMessage::content).toList());
    }

    @Test
    void anAgentScopeStoresArchivalEntriesAndLeavesOtherScopesUntouched() {
        Scope helper = Scope.of("ana", "helper");
        store.agents().create(helper, "helper", "{}");
        store.agents().create(Scope.of("ana", "coach"), "coach", "{}");
        store.notes().save("bob", "The user moved from Lisbon to Porto.");
        AddResult result = add(model(says("{\"facts\": [\"The user moved from Lisbon to Porto.\"]}")),
                MemoryScope.agent("ana", "helper"));
        assertThat(result.stored()).hasSize(1); // bob's note is another scope: not a duplicate
        assertThat(store.archival().list(helper, 0, 10)).extracting(ArchivalEntry::content)
                .containsExactly("The user moved from Lisbon to Porto.");
        assertThat(store.archival().list(Scope.of("ana", "coach"), 0, 10)).isEmpty();
        assertThat(notes("ana")).isEmpty();
        assertThat(notes("bob")).hasSize(1);
        assertThat(store.jobs().get("bob", result.jobId())).isEmpty();
    }

    @Test
    void badBatchesAreRefusedAtOnceAndStoreNothing() {
        try (MemoryManager memory = MemoryManager.builder(store).model(model())
                .options(AddOptions.defaults().withLimits(2, 50, 60)).build()) {
            MemoryScope ana = MemoryScope.user("ana");
            assertThatThrownBy(() -> memory.add(List.of(), ana)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no messages");
            assertThatThrownBy(() -> memory.add(MOVE, ana)).hasMessageContaining("at most 2 messages");
            assertThatThrownBy(() -> memory.add(List.of(MemoryMessage.user("x".repeat(51))), ana))
                    .hasMessageContaining("message 0 holds 51 characters");
            assertThatThrownBy(() -> memory.add(List.of(MemoryMessage.user("x".repeat(40)), MemoryMessage.user("y".repeat(40))), ana))
                    .hasMessageContaining("at most 60");
            assertThatThrownBy(() -> memory.add(List.of(MemoryMessage.user("hi")), MemoryScope.agent("ana", "ghost")))
                    .isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> memory.add(List.of(MemoryMessage.user("hi")), ana,
                    AddOptions.defaults().withTarget(AddOptions.Target.ARCHIVAL))).hasMessageContaining("belong to an agent");
        }
        try (MemoryManager noModel = MemoryManager.builder(store).build()) {
            assertThatThrownBy(() -> noModel.add(MOVE, MemoryScope.user("ana"))).hasMessageContaining("needs a model");
        }
        assertThat(store.jobs().list("ana", 10)).isEmpty();
        assertThat(notes("ana")).isEmpty();
        assertThatThrownBy(() -> MemoryMessage.parseList("[{\"role\": \"user\"}]")).hasMessageContaining("message 0");
        assertThatThrownBy(() -> MemoryMessage.parseList("[{\"role\": \"boss\", \"content\": \"x\"}]"))
                .hasMessageContaining("role is one of");
        assertThatThrownBy(() -> MemoryMessage.parseList("{")).hasMessageContaining("not JSON");
    }

    @Test
    void aFactTheStoreRefusesIsListedAsFailedNotDropped() {
        MemoryStore limited = MemoryStore.over(store.backend(), Clock.systemUTC(), new MemoryLimits(100));
        String tooLong = "The user " + "x".repeat(100);
        AddResult result;
        try (MemoryManager memory = MemoryManager.builder(limited)
                .model(model(says("{\"facts\": [\"The user lives in Porto.\", \"" + tooLong + "\"]}"))).build()) {
            result = memory.add(MOVE, MemoryScope.user("ana")).await(WAIT);
        }
        assertThat(result.status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(result.succeeded()).isFalse();
        assertThat(result.stored()).extracting(AddResult.Fact::text).containsExactly("The user lives in Porto.");
        assertThat(result.failed()).extracting(AddResult.Fact::text).containsExactly(tooLong);
        assertThat(result.failed().getFirst().error()).isNotBlank();
        assertThat(notes("ana")).containsExactly("The user lives in Porto.");
    }
}
