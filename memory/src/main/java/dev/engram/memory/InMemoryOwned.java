package dev.engram.memory;

/** A row of {@link InMemoryBackend} with its owner and its insertion position (for "the later insert first" orders). */
record InMemoryOwned<T>(Scope scope, T row, long pos) {
}
