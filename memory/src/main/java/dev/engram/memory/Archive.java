package dev.engram.memory;

import java.time.Instant;

/**
 * A named collection of archival passages that belongs to one user and that several of the user's agents may search
 * (Letta's archives). An agent's own archival memory is its default archive and stays where it is; an archive's passages
 * are archival entries kept in the archive's own {@linkplain #scope() scope}, so they are stored, counted against the
 * user's quotas, indexed and searched exactly as an agent's are.
 *
 * @param id          {@code archive-<uuid>}
 * @param userId      the user it belongs to
 * @param name        its name (not unique: Letta's archives share names freely)
 * @param description what it holds; may be empty
 * @param createdAt   when it was created
 * @param updatedAt   when its name or description last changed
 */
public record Archive(String id, String userId, String name, String description, Instant createdAt, Instant updatedAt) {
    /** What every archive id starts with. */
    public static final String ID_PREFIX = "archive-";
    /** The longest name accepted, in characters. */
    public static final int MAX_NAME = 200;
    /** The longest description accepted, in characters. */
    public static final int MAX_DESCRIPTION = 4_000;

    public Archive {
        Checks.id(id, "archive id");
        Checks.id(userId, "user id");
        checkName(name);
        checkDescription(description);
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }

    /** Where the archive's passages are kept: its user and, as the agent, the archive's id. */
    public Scope scope() {
        return Scope.of(userId, id);
    }

    static String checkName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("an archive needs a name that is not blank");
        }
        Checks.unicode(name, "archive name");
        if (name.length() > MAX_NAME) {
            throw new IllegalArgumentException("an archive name is at most " + MAX_NAME + " characters, got " + name.length()
                    + "; shorten it and say more in the description");
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException("an archive name must not contain control characters (such as a line break)");
            }
        }
        return name;
    }

    static String checkDescription(String description) {
        Checks.unicode(description, "archive description");
        if (description.length() > MAX_DESCRIPTION) {
            throw new IllegalArgumentException("an archive description is at most " + MAX_DESCRIPTION + " characters, got "
                    + description.length());
        }
        return description;
    }
}
