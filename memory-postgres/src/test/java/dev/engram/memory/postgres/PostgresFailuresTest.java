package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MemoryException;
import dev.engram.memory.StorageFullException;
import dev.engram.memory.StorageUnavailableException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.Test;

/** Which PostgreSQL failures the store reports as an unreachable database or a full disk, by SQLSTATE. */
class PostgresFailuresTest {
    private static final String URL = "jdbc:postgresql://db.internal:5432/engram?currentSchema=a&password=secret";

    private static RuntimeException failed(String sqlState) {
        return new UnableToExecuteStatementException(new SQLException("server said no", sqlState), null);
    }

    @Test
    void aFullDiskIsStorageFullNamingTheDatabaseWithoutItsParameters() {
        assertThat(PostgresFailures.translate(failed("53100"), URL)).isInstanceOf(StorageFullException.class)
                .hasMessageContaining("db.internal:5432/engram is full (SQLSTATE 53100)").hasMessageContaining("nothing of it was written")
                .hasMessageNotContaining("secret").hasMessageNotContaining("currentSchema");
    }

    @Test
    void shutdownsAndBrokenConnectionsAreStorageUnavailable() {
        for (String state : new String[] {"57P01", "57P02", "57P03", "53300", "08006", "08001", "08003"}) {
            assertThat(PostgresFailures.translate(failed(state), URL)).as(state).isInstanceOf(StorageUnavailableException.class)
                    .hasMessageContaining("db.internal:5432/engram cannot be reached").hasMessageNotContaining("secret");
        }
    }

    @Test
    void aDeadlockPostgresBrokeSaysNothingWasKeptAndToRunItAgain() {
        RuntimeException translated = PostgresFailures.translate(failed("40P01"), URL);
        assertThat(translated).isExactlyInstanceOf(MemoryException.class).hasMessageContaining("db.internal:5432/engram")
                .hasMessageContaining("nothing of it was kept").hasMessageContaining("Run it again")
                .hasMessageNotContaining("secret");
    }

    @Test
    void otherFailuresPassUnchanged() {
        RuntimeException unique = failed("23505");
        assertThat(PostgresFailures.translate(unique, URL)).isSameAs(unique);
        RuntimeException noState = new IllegalStateException("no SQL at all");
        assertThat(PostgresFailures.translate(noState, URL)).isSameAs(noState);
    }

    /** A connection that answers only {@code isClosed}. */
    private static Connection connection(boolean closed) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("isClosed")) {
                        return closed;
                    }
                    throw new UnsupportedOperationException(method.getName() + " is not used by PostgresFailures");
                });
    }

    @Test
    void aFailureWithoutStateOnAConnectionThePoolClosedIsALostConnection() {
        SQLException poolWords = new SQLException("Connection is closed"); // HikariCP's, once it evicted the connection
        SQLException lost = PostgresFailures.onConnection(connection(true), poolWords);
        assertThat(lost.getSQLState()).isEqualTo("08003");
        assertThat((Throwable) lost).hasCause(poolWords).hasMessageContaining("Connection is closed");
        assertThat(PostgresFailures.translate(new UnableToExecuteStatementException(lost, null), URL))
                .isInstanceOf(StorageUnavailableException.class).hasMessageContaining("db.internal:5432/engram cannot be reached");

        RuntimeException commitFailed = new IllegalStateException("commit failed", poolWords);
        assertThat(PostgresFailures.translate(PostgresFailures.onConnection(connection(true), commitFailed), URL))
                .isInstanceOf(StorageUnavailableException.class).hasRootCause(poolWords);
    }

    @Test
    void onAnOpenConnectionOrWithAStateAFailureStaysWhatItIs() {
        SQLException noState = new SQLException("something else");
        assertThat((Throwable) PostgresFailures.onConnection(connection(false), noState)).isSameAs(noState);
        SQLException unique = new SQLException("duplicate key", "23505");
        assertThat((Throwable) PostgresFailures.onConnection(connection(true), unique)).isSameAs(unique);
        RuntimeException callers = new IllegalStateException("the caller's own failure");
        assertThat(PostgresFailures.onConnection(connection(false), callers)).isSameAs(callers);
        RuntimeException shutdown = failed("57P01");
        assertThat(PostgresFailures.onConnection(connection(true), shutdown)).isSameAs(shutdown);
    }
}
