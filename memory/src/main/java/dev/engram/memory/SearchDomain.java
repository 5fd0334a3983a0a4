package dev.engram.memory;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** What a search looks through. */
public enum SearchDomain {
    /** The agent's archival entries. */
    ARCHIVAL,
    /** The agent's conversation messages (recall memory). */
    CONVERSATIONS,
    /** The user's notes (shared by all the user's agents). */
    NOTES,
    /** The agent's own core memory blocks. */
    BLOCKS,
    /**
     * The passages of files uploaded to the user's folders: a search names the folders it covers
     * ({@link SearchRequest.Builder#folders}).
     */
    FILES;

    /** Every domain of an agent's own memory and its user's notes: all but {@link #FILES}, which a search asks for by name. */
    public static Set<SearchDomain> all() {
        return EnumSet.complementOf(EnumSet.of(FILES));
    }

    /** The lower-case name used in the index and in tool arguments. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The domain a change-log entity is searched in. */
    public static SearchDomain of(ChangeEvent.Entity entity) {
        return switch (entity) {
            case ARCHIVAL -> ARCHIVAL;
            case MESSAGE -> CONVERSATIONS;
            case NOTE -> NOTES;
            case BLOCK -> BLOCKS;
            case PASSAGE -> FILES;
        };
    }
}
