package dev.engram.memory;

/** A row of {@link InMemoryBackend} known by its owner and a name: a block's label, a canvas's name, a file's id. */
record InMemoryKey(String userId, String agentId, String label) {
    static InMemoryKey of(Scope owner, String label) {
        return new InMemoryKey(owner.userId(), owner.agentId(), label);
    }
}
