package dev.engram.tools;

import dev.engram.framework.ToolProgress;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Keeps the last {@code capacity} bytes of a stream, and how many were dropped: however much a process
 * prints, the memory it takes is its capacity. Shared by {@code shell_exec} and the Python tools.
 */
final class TailBuffer {
    private final byte[] ring;
    private long total;

    TailBuffer(int capacity) {
        this.ring = new byte[capacity];
    }

    void drain(InputStream in) {
        drain(in, ToolProgress.NONE);
    }

    /** Keeps the stream's end and reports everything it reads, as text, to {@code progress} (whole UTF-8 characters). */
    void drain(InputStream in, ToolProgress progress) {
        byte[] buf = new byte[8_192];
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        ByteBuffer undecoded = ByteBuffer.allocate(buf.length + 8);
        CharBuffer chars = CharBuffer.allocate(buf.length + 8);
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                append(buf, 0, n);
                if (progress != ToolProgress.NONE) {
                    // a character cut between two reads waits for its end
                    undecoded.put(buf, 0, n).flip();
                    decoder.decode(undecoded, chars, false);
                    undecoded.compact();
                    progress.report(chars.flip().toString());
                    chars.clear();
                }
            }
        } catch (IOException ignored) {
            // the process was killed
        }
    }

    /** Keeps {@code bytes} as the stream's next ones. */
    void append(byte[] bytes) {
        append(bytes, 0, bytes.length);
    }

    /** Keeps {@code length} more bytes of the stream. */
    synchronized void append(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            ring[(int) (total++ % ring.length)] = bytes[i];
        }
    }

    /** How many bytes the stream held in all, kept or dropped. */
    synchronized long total() {
        return total;
    }

    /** How many bytes are held: never more than the capacity. */
    synchronized int kept() {
        return (int) Math.min(total, ring.length);
    }

    /** The kept end, preceded by a line saying how many earlier bytes were dropped when some were. */
    synchronized String text() {
        byte[] kept = keptBytes();
        int skip = leadingContinuationBytes(kept);
        String tail = new String(kept, skip, kept.length - skip, StandardCharsets.UTF_8);
        return total > ring.length ? "[... " + (total - ring.length + skip) + " earlier bytes dropped]\n" + tail : tail;
    }

    /** The kept end alone, starting at a whole UTF-8 character. */
    synchronized String tail() {
        byte[] kept = keptBytes();
        int skip = leadingContinuationBytes(kept);
        return new String(kept, skip, kept.length - skip, StandardCharsets.UTF_8);
    }

    private byte[] keptBytes() {
        int size = (int) Math.min(total, ring.length);
        byte[] out = new byte[size];
        int start = (int) (total % ring.length);
        for (int i = 0; i < size; i++) {
            out[i] = ring[total > ring.length ? (start + i) % ring.length : i];
        }
        return out;
    }

    /** A cut can fall inside a character: its continuation bytes are dropped too. */
    private static int leadingContinuationBytes(byte[] bytes) {
        int skip = 0;
        while (skip < bytes.length && (bytes[skip] & 0xC0) == 0x80) {
            skip++;
        }
        return skip;
    }
}
