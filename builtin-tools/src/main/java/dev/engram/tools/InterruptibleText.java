package dev.engram.tools;

import dev.engram.framework.ToolException;

/**
 * A line that a regular expression reads through, checking for interruption: a pattern that
 * backtracks catastrophically ({@code ((a+)+)+x}) stops when the tool's timeout interrupts it,
 * instead of burning a core after the call has ended.
 */
record InterruptibleText(CharSequence text) implements CharSequence {
    @Override
    public char charAt(int index) {
        if (Thread.currentThread().isInterrupted()) {
            throw new ToolException("The search was stopped (timed out or cancelled) while matching the pattern.");
        }
        return text.charAt(index);
    }

    @Override
    public int length() {
        return text.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return new InterruptibleText(text.subSequence(start, end));
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
