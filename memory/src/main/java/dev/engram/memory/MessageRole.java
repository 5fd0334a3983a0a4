package dev.engram.memory;

/** Who said a conversation message. */
public enum MessageRole {
    SYSTEM, USER, ASSISTANT, TOOL
}
