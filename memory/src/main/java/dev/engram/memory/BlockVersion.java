package dev.engram.memory;

import java.time.Instant;

/**
 * One committed version of a block, kept so an edit can be undone.
 *
 * @param version     the version number
 * @param value       the text at that version
 * @param operation   what produced it: create, append, replace, restore, load
 * @param committedAt when it was committed
 */
public record BlockVersion(long version, String value, String operation, Instant committedAt) {
}
