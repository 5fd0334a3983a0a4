package dev.engram.memory;

/** An archive or a folder of {@link InMemoryBackend} attached to an agent, in insertion order. */
record InMemoryAttachment(String userId, String archiveId, String agentId, long pos) {
}
