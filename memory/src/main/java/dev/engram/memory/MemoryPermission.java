package dev.engram.memory;

/**
 * What an agent may do to a block, decided by {@link Acl#decide}. Ordered from least to most.
 */
public enum MemoryPermission {
    /** Read only. */
    READ_ONLY,
    /** Writes need the consent of the agent's partner (the user it serves). */
    PARTNER,
    /** Writes need the consent of a human. */
    HUMAN,
    /** Read and append. */
    APPEND,
    /** Read, append and overwrite. */
    READ_WRITE,
    /** Everything, including delete. */
    ADMIN
}
