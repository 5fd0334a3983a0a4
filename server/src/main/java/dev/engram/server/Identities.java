package dev.engram.server;

/** Letta's identities are Engram's users: identity {@code identity-<user>} is user {@code <user>}. */
final class Identities {
    private static final String PREFIX = "identity-";

    private Identities() {
    }

    static String id(String userId) {
        return PREFIX + userId;
    }

    /** The user an identity id names; a 404 for anything that is not an identity id. */
    static String userOf(String identityId) {
        if (identityId.startsWith(PREFIX) && identityId.length() > PREFIX.length()) {
            return identityId.substring(PREFIX.length());
        }
        throw ApiException.notFound("Identity '" + identityId + "' not found.");
    }
}
