package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tools users write from source: each its user's, one per name and user, every field kept as given, changed and
 * deleted by its user only. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class CustomToolConformance {
    /** The open store under test. */
    protected abstract MemoryStore store();

    static CustomToolSpec spec(String name) {
        return new CustomToolSpec(name, "Rolls a die.", "python", "def " + name + "(sides: int) -> int:\n    return 4\n",
                "{\"name\":\"" + name + "\",\"parameters\":{\"type\":\"object\"}}", "", List.of("games", "dice"), 1_000,
                "[{\"name\":\"numpy\"}]", "[]", true, "{\"k\":\"v\"}");
    }

    @Test
    void aToolIsStoredWithEveryFieldSeenByItsUserOnlyChangedAndDeleted() {
        CustomTool roll = store().customTools().create("ana", spec("roll"));
        assertThat(roll.id()).startsWith(CustomTool.ID_PREFIX);
        assertThat(store().customTools().get("ana", roll.id())).contains(roll);
        assertThat(store().customTools().get("ana", roll.id()).orElseThrow().spec()).isEqualTo(spec("roll"));
        assertThat(store().customTools().byName("ana", "roll")).contains(roll);
        assertThat(store().customTools().get("ben", roll.id())).isEmpty();
        assertThat(store().customTools().byName("ben", "roll")).isEmpty();
        assertThat(store().customTools().list("ben")).isEmpty();
        CustomTool bens = store().customTools().create("ben", spec("roll"));
        CustomTool flip = store().customTools().create("ana", spec("flip"));
        assertThat(store().customTools().list("ana")).containsExactly(roll, flip);

        CustomTool renamed = store().customTools().update("ana", roll.id(), spec("roll_die"));
        assertThat(renamed.name()).isEqualTo("roll_die");
        assertThat(renamed.createdAt()).isEqualTo(roll.createdAt());
        assertThat(store().customTools().get("ana", roll.id())).contains(renamed);
        assertThatThrownBy(() -> store().customTools().update("ben", roll.id(), spec("mine")))
                .isInstanceOf(NotFoundException.class);

        assertThat(store().customTools().delete("ben", roll.id())).isFalse();
        assertThat(store().customTools().delete("ana", roll.id())).isTrue();
        assertThat(store().customTools().delete("ana", roll.id())).isFalse();
        assertThat(store().customTools().list("ana")).containsExactly(flip);
        assertThat(store().customTools().list("ben")).containsExactly(bens);
    }

    @Test
    void upsertCreatesOnceThenReplacesTheToolOfTheSameName() {
        CustomTool first = store().customTools().upsert("ana", spec("roll"));
        CustomToolSpec changed = new CustomToolSpec("roll", "Rolls two dice.", "python", "def roll():\n    return 7\n",
                "{\"name\":\"roll\"}", "{\"type\":\"object\"}", List.of(), 10, "[]", "[]", false, "{}");
        CustomTool second = store().customTools().upsert("ana", changed);
        assertThat(second.id()).isEqualTo(first.id());
        assertThat(second.spec()).isEqualTo(changed);
        assertThat(store().customTools().list("ana")).containsExactly(second);
    }

    @Test
    void aSecondToolOfTheSameNameOrABadSpecIsRefusedAndNothingChanges() {
        CustomTool roll = store().customTools().create("ana", spec("roll"));
        CustomTool flip = store().customTools().create("ana", spec("flip"));
        assertThatThrownBy(() -> store().customTools().create("ana", spec("roll")))
                .isInstanceOf(DuplicateException.class).hasMessageContaining("'roll'");
        assertThatThrownBy(() -> store().customTools().update("ana", flip.id(), spec("roll")))
                .isInstanceOf(DuplicateException.class);
        assertThatThrownBy(() -> new CustomToolSpec("x", "", "python", "", "{}", "", List.of(), 0, "[]", "[]", false, "{}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("return character limit");
        assertThatThrownBy(() -> new CustomToolSpec(" ", "", "python", "", "{}", "", List.of(), 1, "[]", "[]", false, "{}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tool name");
        assertThat(store().customTools().list("ana")).containsExactly(roll, flip);
    }
}
