package dev.engram.memory;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link Group} is made of, as its user gives it on creation and on change.
 *
 * @param description    what the group is for; may be empty
 * @param manager        how it takes turns
 * @param agentIds       its member agents, in speaking order, without repeats
 * @param sharedBlockIds the blocks shared with every member (ids as the API shows them), without repeats
 * @param hidden         whether lists leave it out unless asked
 */
public record GroupSpec(String description, GroupManager manager, List<String> agentIds, List<String> sharedBlockIds,
        boolean hidden) {
    /** The most members a group has. */
    public static final int MAX_AGENTS = 100;
    /** The most blocks a group shares. */
    public static final int MAX_BLOCKS = 100;
    /** The longest description accepted, in characters. */
    public static final int MAX_DESCRIPTION = 4_000;

    public GroupSpec {
        Checks.unicode(description, "description");
        if (description.length() > MAX_DESCRIPTION) {
            throw new IllegalArgumentException("description is at most " + MAX_DESCRIPTION + " characters, got "
                    + description.length());
        }
        Objects.requireNonNull(manager, "manager must not be null");
        agentIds = distinctIds(agentIds, "agent_ids", MAX_AGENTS);
        sharedBlockIds = distinctIds(sharedBlockIds, "shared_block_ids", MAX_BLOCKS);
    }

    private static List<String> distinctIds(List<String> ids, String field, int max) {
        Checks.noNulls(ids, field);
        if (ids.size() > max) {
            throw new IllegalArgumentException(field + " holds at most " + max + " ids, got " + ids.size());
        }
        LinkedHashSet<String> seen = new LinkedHashSet<>();
        for (String id : ids) {
            Checks.id(id, field + " entry");
            if (!seen.add(id)) {
                throw new IllegalArgumentException(field + " names '" + id + "' twice; name each once");
            }
        }
        return List.copyOf(ids);
    }

    /** This spec with {@code ids} as its shared blocks. */
    public GroupSpec withSharedBlockIds(List<String> ids) {
        return new GroupSpec(description, manager, agentIds, ids, hidden);
    }
}
