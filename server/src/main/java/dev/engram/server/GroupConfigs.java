package dev.engram.server;

import dev.engram.memory.GroupManager;
import dev.engram.memory.GroupSpec;
import java.util.List;
import java.util.Optional;

/**
 * Letta's {@code GroupCreate} and {@code GroupUpdate} bodies as a {@link GroupSpec}: the {@code manager_config} by its
 * {@code manager_type} (round robin when there is none), every refusal a 422 naming the field. Letta's
 * {@code voice_sleeptime} and {@code swarm} managers are refused: Engram has no voice agents, and Letta itself runs no
 * swarm.
 */
final class GroupConfigs {
    /** The fields of a manager config, in Letta's names. */
    private static final List<String> FIELDS = List.of("manager_agent_id", "max_turns", "termination_token",
            "sleeptime_agent_frequency");

    private GroupConfigs() {
    }

    /**
     * The manager the body's {@code manager_config} describes. On a change ({@code current} present), a config of the
     * current type keeps the settings it leaves out; a config of another type starts afresh.
     */
    static GroupManager manager(Body body, Optional<GroupManager> current) {
        Body config = body.object("manager_config").map(o -> Body.of(o, body.location("manager_config")))
                .orElse(Body.of(Body.JSON.createObjectNode(), body.location("manager_config")));
        String name = config.string("manager_type").orElse(current.map(m -> m.type().lettaName()).orElse("round_robin"));
        GroupManager.Type type = GroupManager.Type.ofLettaName(name).orElseThrow(() -> config.problem("literal_error",
                "manager_type '" + name + "' is not run by Engram: use round_robin, supervisor, dynamic or sleeptime"
                        + (name.equals("voice_sleeptime") ? " (Engram has no voice agents)" : ""), "manager_type"));
        Optional<GroupManager> same = current.filter(m -> m.type() == type);
        try {
            return new GroupManager(type,
                    config.string("manager_agent_id").or(() -> same.flatMap(GroupManager::managerAgentId)),
                    config.integer("max_turns").or(() -> same.flatMap(GroupManager::maxTurns)),
                    config.string("termination_token").or(() -> same.flatMap(GroupManager::terminationToken)),
                    config.integer("sleeptime_agent_frequency").or(() -> same.flatMap(GroupManager::sleeptimeAgentFrequency)));
        } catch (IllegalArgumentException e) {
            String field = FIELDS.stream().filter(f -> e.getMessage().startsWith(f)).findFirst().orElse("manager_type");
            throw config.problem("value_error", e.getMessage(), field);
        }
    }

    /** The group's spec from its parts; a 422 naming the field for a bad one. */
    static GroupSpec spec(Body body, String description, GroupManager manager, List<String> agentIds,
            List<String> sharedBlockIds, boolean hidden) {
        try {
            return new GroupSpec(description, manager, agentIds, sharedBlockIds, hidden);
        } catch (IllegalArgumentException e) {
            String field = List.of("agent_ids", "shared_block_ids", "description").stream()
                    .filter(f -> e.getMessage().startsWith(f)).findFirst().orElse("body");
            throw body.problem("value_error", e.getMessage(), field);
        }
    }
}
