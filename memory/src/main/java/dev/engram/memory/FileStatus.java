package dev.engram.memory;

import java.util.Locale;

/** Where an uploaded {@link FolderFile} is: Letta's {@code FileProcessingStatus}. */
public enum FileStatus {
    /** Accepted, waiting for its turn. */
    PENDING,
    /** Its text is being read out of the upload. */
    PARSING,
    /** Its passages are being stored, embedded and indexed. */
    EMBEDDING,
    /** Every passage is searchable. */
    COMPLETED,
    /** Processing stopped: its error says why. */
    ERROR;

    /** Whether processing has ended, well or not. */
    public boolean isTerminal() {
        return this == COMPLETED || this == ERROR;
    }

    /** Letta's name of the status ({@code pending}, …). */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
