package dev.engram.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Reads rows in pages and keeps those that match, for listings filtered in Java the same way on every backend. */
final class Paging {
    private static final int PAGE = 500;

    private Paging() {
    }

    /** A page reader: rows {@code offset} to {@code offset + limit} of a listing. */
    @FunctionalInterface
    interface Pages<T> {
        List<T> read(int offset, int limit);
    }

    /** The matching rows {@code offset} to {@code offset + limit} (counted among the matches), in the listing's order. */
    static <T> List<T> matching(Pages<T> pages, Predicate<T> matches, int offset, int limit) {
        List<T> out = new ArrayList<>();
        int skipped = 0;
        for (int at = 0; ; at += PAGE) {
            List<T> page = pages.read(at, PAGE);
            for (T row : page) {
                if (!matches.test(row)) {
                    continue;
                }
                if (skipped < offset) {
                    skipped++;
                } else {
                    out.add(row);
                    if (out.size() == limit) {
                        return out;
                    }
                }
            }
            if (page.size() < PAGE) {
                return out;
            }
        }
    }
}
