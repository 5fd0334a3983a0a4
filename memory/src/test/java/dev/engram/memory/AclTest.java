package dev.engram.memory;

import static dev.engram.memory.Acl.Decision.ALLOW;
import static dev.engram.memory.Acl.Decision.DENY;
import static dev.engram.memory.Acl.Decision.NEEDS_CONSENT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Acl.Decision;
import dev.engram.memory.Acl.Operation;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AclTest {
    /** The whole table, written out: permission to {read, append, overwrite, delete}. */
    private static final Map<MemoryPermission, Decision[]> TABLE = new EnumMap<>(Map.of(
            MemoryPermission.READ_ONLY, new Decision[] {ALLOW, DENY, DENY, DENY},
            MemoryPermission.PARTNER, new Decision[] {ALLOW, NEEDS_CONSENT, NEEDS_CONSENT, DENY},
            MemoryPermission.HUMAN, new Decision[] {ALLOW, NEEDS_CONSENT, NEEDS_CONSENT, DENY},
            MemoryPermission.APPEND, new Decision[] {ALLOW, ALLOW, DENY, DENY},
            MemoryPermission.READ_WRITE, new Decision[] {ALLOW, ALLOW, ALLOW, DENY},
            MemoryPermission.ADMIN, new Decision[] {ALLOW, ALLOW, ALLOW, ALLOW}));

    @Test
    void everyPermissionAndOperationIsDecidedAsTheTableSays() {
        assertThat(TABLE).hasSize(MemoryPermission.values().length);
        int checked = 0;
        for (MemoryPermission p : MemoryPermission.values()) {
            for (Operation op : Operation.values()) {
                assertThat(Acl.decide(p, op)).as(p + " " + op).isEqualTo(TABLE.get(p)[op.ordinal()]);
                checked++;
            }
        }
        assertThat(checked).isEqualTo(24);
    }

    @Test
    void readIsAlwaysAllowedAndDeleteOnlyForAdmin() {
        for (MemoryPermission p : MemoryPermission.values()) {
            assertThat(Acl.decide(p, Operation.READ)).isEqualTo(ALLOW);
            assertThat(Acl.decide(p, Operation.DELETE)).isEqualTo(p == MemoryPermission.ADMIN ? ALLOW : DENY);
        }
    }
}
