package dev.engram.memory;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * What {@link InMemoryBackend}'s stores share: the undo log of the write in progress, which puts every changed map entry
 * back when the write fails, and the counter of insertion positions (message ids, and the "later insert first" orders).
 * One per backend, used only under its lock.
 */
final class InMemoryUndo {
    private final Deque<Runnable> undo = new ArrayDeque<>();
    private long nextPos = 1;

    /** Puts {@code value} under {@code key}, and what was there (or nothing) back on undo. */
    <K, V> void put(Map<K, V> map, K key, V value) {
        boolean had = map.containsKey(key);
        V old = map.put(key, value);
        undo.push(() -> {
            if (had) {
                map.put(key, old);
            } else {
                map.remove(key);
            }
        });
    }

    /** Removes {@code key}, and puts it back on undo; returns whether there was one. */
    <K, V> boolean remove(Map<K, V> map, K key) {
        if (!map.containsKey(key)) {
            return false;
        }
        V old = map.remove(key);
        undo.push(() -> map.put(key, old));
        return true;
    }

    /** Runs {@code step} on undo, before the steps recorded earlier. */
    void push(Runnable step) {
        undo.push(step);
    }

    /** The next insertion position: increasing, never reused (an undone write does not give its positions back). */
    long position() {
        return nextPos++;
    }

    /** Forgets the steps recorded: the write is done, or starts. */
    void clear() {
        undo.clear();
    }

    /** Undoes every step recorded, the latest first. */
    void rollback() {
        while (!undo.isEmpty()) {
            undo.pop().run();
        }
    }
}
