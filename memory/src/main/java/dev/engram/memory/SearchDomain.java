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
    BLOCKS;

    /** Every domain. */
    public static Set<SearchDomain> all() {
        return EnumSet.allOf(SearchDomain.class);
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
        };
    }
}
