package dev.engram.memory.onnx;

import java.util.LinkedHashMap;
import java.util.Map;

/** A bounded, thread-safe map of recent queries to their vectors, least recently used evicted first; size 0 holds nothing. */
final class QueryCache {
    private final int capacity;
    private final LinkedHashMap<String, float[]> entries;

    QueryCache(int capacity) {
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
                return size() > QueryCache.this.capacity;
            }
        };
    }

    /** The vector stored for {@code query}, or null; the caller must not change it. */
    synchronized float[] get(String query) {
        return capacity == 0 ? null : entries.get(query);
    }

    synchronized void put(String query, float[] vector) {
        if (capacity > 0) {
            entries.put(query, vector);
        }
    }

    synchronized int size() {
        return entries.size();
    }
}
