package dev.engram.memory;

/** The failures both built-in stores raise, worded once. */
final class MemoryErrors {
    private MemoryErrors() {
    }

    static MemoryException spoiledUnit(RuntimeException failure) {
        return new MemoryException("The unit of work was rolled back and nothing it wrote was kept: a store call inside it "
                + "failed (" + failure.getMessage() + "). Let that failure end the unit, or check before you write.", failure);
    }

    static NotFoundException noBlock(Scope scope, String label) {
        return new NotFoundException("Agent '" + scope.agentId() + "' has no block labelled '" + label + "'.");
    }

    static NotFoundException notOwnBlock(Scope scope, String label) {
        return new NotFoundException("Agent '" + scope.agentId() + "' does not own a block labelled '" + label
                + "' (a block shared with it can only be archived, loaded or shared by its owner).");
    }

    static DuplicateException duplicateBlock(Scope scope, String label) {
        return new DuplicateException("Agent '" + scope.agentId() + "' already has a block labelled '" + label
                + "'; choose another label or edit that block.");
    }

    static DuplicateException duplicateArchival(String label) {
        return new DuplicateException("An archival entry labelled '" + label
                + "' already exists for this agent; append to it or choose another label.");
    }

    static NotFoundException noArchivalLabel(String label) {
        return new NotFoundException("There is no archival entry labelled '" + label + "' for this agent.");
    }

    static NotFoundException noArchival(String id) {
        return new NotFoundException("There is no archival entry '" + id + "' in this agent's memory.");
    }

    static NotFoundException noNote(String noteId) {
        return new NotFoundException("There is no note '" + noteId + "' for this user.");
    }

    static NotFoundException noVersion(String label, long version, long current) {
        return new NotFoundException("Block '" + label + "' has no version " + version + "; its versions run from 1 to "
                + current + ".");
    }

    static IllegalArgumentException selfShare(String label) {
        return new IllegalArgumentException("block '" + label + "' cannot be shared with the agent that owns it");
    }

    static DuplicateException duplicateAgentId(Scope scope) {
        return new DuplicateException("User '" + scope.userId() + "' already has an agent with id '" + scope.agentId()
                + "'; choose another id or update that agent.");
    }

    static NotFoundException noAgent(Scope scope) {
        return new NotFoundException("User '" + scope.userId() + "' has no agent with id '" + scope.agentId() + "'.");
    }

    static void checkAgent(String name, String definition) {
        Checks.id(name, "agent name");
        checkContent(definition, "agent definition");
    }

    static MemoryException closed() {
        return new MemoryException("The memory store is closed.");
    }

    static void checkLimit(String label, String newValue, int limit, int currentSize) {
        int size = Checks.size(newValue);
        if (size > limit) {
            throw new LimitExceededException(label, size, limit, currentSize);
        }
    }

    static void checkPaging(int offset, int limit) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, got " + offset);
        }
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
    }

    static void checkContent(String content, String what) {
        if (content == null || content.isBlank()) {
            throw new IllegalArgumentException(what + " must not be null or blank");
        }
        Checks.unicode(content, what);
    }
}
