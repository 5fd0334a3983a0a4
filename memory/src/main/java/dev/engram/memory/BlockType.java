package dev.engram.memory;

/** Where a block lives in the agent's memory hierarchy. */
public enum BlockType {
    /** Always rendered into the prompt. */
    CORE,
    /** Rendered while the agent works on something; loaded from and archived to archival memory. */
    WORKING,
    /** Kept as a block but meant for archival memory; not rendered by default. */
    ARCHIVAL
}
