package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Multi-agent groups on one backend: each its user's, made of the user's own agents only, with every manager type's
 * settings kept as given. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class GroupConformance {
    private static final Scope ANA_HELPER = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope ANA_BOSS = Scope.of("ana", "boss");
    private static final Scope BEN_HELPER = Scope.of("ben", "other");

    /** The open store under test. */
    protected abstract MemoryStore store();

    @BeforeEach
    void agents() {
        for (Scope s : List.of(ANA_HELPER, ANA_COACH, ANA_BOSS, BEN_HELPER)) {
            store().agents().create(s, s.agentId(), "{}");
        }
    }

    private static GroupSpec spec(GroupManager manager, List<String> agents) {
        return new GroupSpec("planning", manager, agents, List.of(), false);
    }

    @Test
    void aGroupIsCreatedReadListedAndSeenByItsUserOnly() {
        GroupManager dynamic = new GroupManager(GroupManager.Type.DYNAMIC, Optional.of("boss"), Optional.of(4),
                Optional.of("FIN"), Optional.empty());
        Group g = store().groups().create("ana", new GroupSpec("debate", dynamic, List.of("helper", "coach"),
                List.of("block-x", "block-y"), true));
        Group rr = store().groups().create("ana", spec(GroupManager.roundRobin(), List.of("coach", "helper")));
        assertThat(g.id()).startsWith(Group.ID_PREFIX);
        assertThat(store().groups().get("ana", g.id())).contains(g);
        Group read = store().groups().get("ana", g.id()).orElseThrow();
        assertThat(read.spec().manager()).isEqualTo(dynamic);
        assertThat(read.spec().agentIds()).containsExactly("helper", "coach");
        assertThat(read.spec().sharedBlockIds()).containsExactly("block-x", "block-y");
        assertThat(read.spec().hidden()).isTrue();
        assertThat(store().groups().list("ana")).containsExactly(g, rr);
        assertThat(store().groups().get("ben", g.id())).isEmpty();
        assertThat(store().groups().list("ben")).isEmpty();
        assertThat(store().groups().ofAgent("ana", "boss")).containsExactly(g);
        assertThat(store().groups().ofAgent("ana", "helper")).containsExactly(g, rr);
        assertThat(store().groups().ofAgent("ben", "helper")).isEmpty();
    }

    @Test
    void everyManagerTypeKeepsItsSettings() {
        GroupManager sleeptime = new GroupManager(GroupManager.Type.SLEEPTIME, Optional.of("boss"), Optional.empty(),
                Optional.empty(), Optional.of(3));
        GroupManager roundRobin = new GroupManager(GroupManager.Type.ROUND_ROBIN, Optional.empty(), Optional.of(5),
                Optional.empty(), Optional.empty());
        for (GroupManager m : List.of(sleeptime, roundRobin, GroupManager.supervisor("boss"), GroupManager.dynamic("boss"))) {
            Group g = store().groups().create("ana", spec(m, List.of("helper")));
            assertThat(store().groups().get("ana", g.id()).orElseThrow().spec().manager()).isEqualTo(m);
        }
        assertThat(GroupManager.dynamic("boss").terminationToken()).contains(GroupManager.DEFAULT_TERMINATION_TOKEN);
    }

    @Test
    void aGroupNamingAnotherUsersAgentIsRefusedAndNothingStored() {
        assertThatThrownBy(() -> store().groups().create("ana", spec(GroupManager.roundRobin(), List.of("helper", "other"))))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("'other'");
        assertThatThrownBy(() -> store().groups().create("ana", spec(GroupManager.supervisor("other"), List.of("helper"))))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("'other'");
        assertThat(store().groups().list("ana")).isEmpty();
    }

    @Test
    void anUpdateReplacesTheSpecOnlyForItsUserAndKeepsCounterAndCreation() {
        Group g = store().groups().create("ana", spec(GroupManager.roundRobin(), List.of("helper")));
        Group counted = store().groups().countTurn("ana", g.id());
        assertThat(counted.turnsCounter()).isEqualTo(1);
        GroupSpec changed = new GroupSpec("new", GroupManager.supervisor("boss"), List.of("coach", "helper"), List.of("block-z"),
                false);
        Group next = store().groups().update("ana", g.id(), changed);
        assertThat(next.spec()).isEqualTo(changed);
        assertThat(next.turnsCounter()).isEqualTo(1);
        assertThat(next.createdAt()).isEqualTo(g.createdAt());
        assertThat(store().groups().get("ana", g.id())).contains(next);

        assertThatThrownBy(() -> store().groups().update("ben", g.id(), changed)).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> store().groups().update("ana", g.id(), spec(GroupManager.roundRobin(), List.of("other"))))
                .isInstanceOf(NotFoundException.class);
        assertThat(store().groups().get("ana", g.id())).contains(next);
    }

    @Test
    void aGroupIsDeletedByItsUserOnly() {
        Group g = store().groups().create("ana", spec(GroupManager.roundRobin(), List.of("helper")));
        assertThat(store().groups().delete("ben", g.id())).isFalse();
        assertThat(store().groups().get("ana", g.id())).isPresent();
        assertThat(store().groups().delete("ana", g.id())).isTrue();
        assertThat(store().groups().delete("ana", g.id())).isFalse();
        assertThat(store().groups().list("ana")).isEmpty();
        assertThat(store().agents().get(ANA_HELPER)).isPresent();
    }

    @Test
    void badManagerSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> GroupManager.supervisor(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("manager_agent_id");
        assertThatThrownBy(() -> new GroupManager(GroupManager.Type.SUPERVISOR, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty())).hasMessageContaining("manager_agent_id is required");
        assertThatThrownBy(() -> new GroupManager(GroupManager.Type.ROUND_ROBIN, Optional.empty(), Optional.of(0),
                Optional.empty(), Optional.empty())).hasMessageContaining("max_turns");
        assertThatThrownBy(() -> new GroupManager(GroupManager.Type.SUPERVISOR, Optional.of("boss"), Optional.empty(),
                Optional.of("STOP"), Optional.empty())).hasMessageContaining("termination_token does not apply");
        assertThatThrownBy(() -> new GroupManager(GroupManager.Type.SLEEPTIME, Optional.of("boss"), Optional.empty(),
                Optional.empty(), Optional.of(0))).hasMessageContaining("sleeptime_agent_frequency");
        assertThatThrownBy(() -> new GroupSpec("", GroupManager.roundRobin(), List.of("helper", "helper"), List.of(), false))
                .hasMessageContaining("agent_ids names 'helper' twice");
    }
}
