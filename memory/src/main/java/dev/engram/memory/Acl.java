package dev.engram.memory;

import java.util.Objects;

/**
 * The one access-control rule for memory blocks. Every tool that touches a block asks it; the store
 * itself only enforces scope, limits and versions.
 *
 * <table>
 *   <caption>decisions</caption>
 *   <tr><th>permission</th><th>read</th><th>append</th><th>overwrite</th><th>delete</th></tr>
 *   <tr><td>read_only</td><td>allow</td><td>deny</td><td>deny</td><td>deny</td></tr>
 *   <tr><td>partner</td><td>allow</td><td>consent</td><td>consent</td><td>deny</td></tr>
 *   <tr><td>human</td><td>allow</td><td>consent</td><td>consent</td><td>deny</td></tr>
 *   <tr><td>append</td><td>allow</td><td>allow</td><td>deny</td><td>deny</td></tr>
 *   <tr><td>read_write</td><td>allow</td><td>allow</td><td>allow</td><td>deny</td></tr>
 *   <tr><td>admin</td><td>allow</td><td>allow</td><td>allow</td><td>allow</td></tr>
 * </table>
 *
 * <p>Delete is for {@code admin} only: consent lets a partner or human block be written, never deleted.
 */
public final class Acl {
    /** What is being done to a block. */
    public enum Operation {
        READ, APPEND, OVERWRITE, DELETE
    }

    /** The answer. */
    public enum Decision {
        ALLOW, NEEDS_CONSENT, DENY
    }

    private Acl() {
    }

    /** Decides; a pure function of its two arguments. */
    public static Decision decide(MemoryPermission permission, Operation operation) {
        Objects.requireNonNull(permission, "permission");
        Objects.requireNonNull(operation, "operation");
        if (operation == Operation.READ) {
            return Decision.ALLOW;
        }
        return switch (permission) {
            case READ_ONLY -> Decision.DENY;
            case PARTNER, HUMAN -> operation == Operation.DELETE ? Decision.DENY : Decision.NEEDS_CONSENT;
            case APPEND -> operation == Operation.APPEND ? Decision.ALLOW : Decision.DENY;
            case READ_WRITE -> operation == Operation.DELETE ? Decision.DENY : Decision.ALLOW;
            case ADMIN -> Decision.ALLOW;
        };
    }
}
