package dev.engram.cli;

import java.io.PrintWriter;
import java.util.Locale;

/** A one-line progress bar on standard error, redrawn at most every 100 ms. */
final class ProgressBar {
    private static final int WIDTH = 30;
    private final PrintWriter err;
    private final String label;
    private long lastDraw;
    private long done;
    private long total;

    ProgressBar(PrintWriter err, String label) {
        this.err = err;
        this.label = label;
    }

    synchronized void update(long done, long total) {
        this.done = done;
        this.total = total;
        long now = System.nanoTime();
        if (now - lastDraw > 100_000_000L || done == total) {
            lastDraw = now;
            draw();
        }
    }

    private void draw() {
        int filled = total <= 0 ? WIDTH : (int) Math.min(WIDTH, WIDTH * done / total);
        err.printf(Locale.ROOT, "\r%s [%s%s] %d/%d", label, "#".repeat(filled), " ".repeat(WIDTH - filled), done, total);
        err.flush();
    }

    synchronized void done() {
        draw();
        err.println();
        err.flush();
    }

    synchronized String summary() {
        return done + " items";
    }
}
