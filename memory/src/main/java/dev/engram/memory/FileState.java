package dev.engram.memory;

import java.time.Instant;

/**
 * What one agent has of one file of a folder attached to it (a row of Letta's {@code files_agents}): whether the file is
 * open in its prompt, the window of lines it sees, and when it last used the file (the least recently used open file is
 * closed first when the agent opens one more than it may).
 *
 * @param userId         the user of the agent and the file
 * @param agentId        the agent
 * @param fileId         the file
 * @param folderId       the file's folder, attached to the agent
 * @param open           whether the file is open in the agent's prompt
 * @param offset         the first line of the window, 0-based
 * @param length         how many lines the window shows; 0: to the end of the file
 * @param lastAccessedAt when the agent last opened or searched the file
 */
public record FileState(String userId, String agentId, String fileId, String folderId, boolean open, int offset, int length,
        Instant lastAccessedAt) {
    public FileState {
        Checks.id(userId, "user id");
        Checks.id(agentId, "agent id");
        Checks.id(fileId, "file id");
        Checks.id(folderId, "folder id");
        Checks.notNull(lastAccessedAt, "last access");
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("a file's view starts at line 0 or later and shows 0 (all) or more lines, not "
                    + length + " from " + offset);
        }
    }

    /** This state closed: the window is forgotten, as Letta forgets it. */
    public FileState closed() {
        return new FileState(userId, agentId, fileId, folderId, false, 0, 0, lastAccessedAt);
    }
}
