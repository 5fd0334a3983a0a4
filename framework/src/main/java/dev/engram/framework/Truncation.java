package dev.engram.framework;

/** Which end of an over-long tool output is kept when the pipeline truncates it. */
public enum Truncation {
    /** Keep the beginning; the truncation notice is appended at the end. The default. */
    KEEP_HEAD,
    /** Keep the end (logs, command output); the truncation notice is put in front, where the cut is. */
    KEEP_TAIL
}
