package dev.engram.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Concurrent clients sending messages for a while, in one of two ways:
 *
 * <ul>
 *   <li><b>closed loop</b> ({@code rate} empty): each client sends its next message as soon as the last was
 *       answered. This measures capacity; the latency is then whatever the queue makes it (by Little's law,
 *       clients / throughput on average).</li>
 *   <li><b>paced</b> ({@code rate} present): the clients together offer {@code rate} messages per second, each on a
 *       fixed schedule of its own (client {@code c} of {@code C} sends its {@code k}-th message at
 *       {@code (k + c / C) * C / rate} seconds). A message's latency counts from when it was due, not from when it
 *       was sent, so a client held up by a slow answer does not hide the delay of the messages behind it
 *       (no coordinated omission). This measures the latency a given load sees.</li>
 * </ul>
 */
final class LoadClients {
    /** How a client sends one message. */
    @FunctionalInterface
    interface Send {
        /** Sends the message to {@code agent}; throws when it failed. */
        void send(int client, String agent, String text) throws Exception;
    }

    /** What a run saw. */
    record Result(long[] latencyNanos, List<String> errors, Map<String, Set<String>> acknowledged, double seconds) {
        double perSecond() {
            return latencyNanos.length / seconds;
        }

        double ms(double quantile) {
            return latencyNanos.length == 0 ? Double.NaN
                    : latencyNanos[Math.min(latencyNanos.length - 1, (int) (quantile * latencyNanos.length))] / 1e6;
        }
    }

    private LoadClients() {
    }

    /**
     * Runs {@code clients} clients for {@code duration}; client {@code c} is user {@code c % agentsOf.size()} and
     * cycles through that user's agents.
     */
    static Result run(int clients, List<List<String>> agentsOf, Duration duration, Optional<Double> rate, String tag, Send send)
            throws InterruptedException {
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        Map<String, Set<String>> acknowledged = new ConcurrentHashMap<>();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long interval = rate.map(r -> (long) (clients * 1e9 / r)).orElse(0L);
        CountDownLatch done = new CountDownLatch(clients);
        for (int c = 0; c < clients; c++) {
            int client = c;
            Thread.ofVirtual().start(() -> {
                try {
                    int users = agentsOf.size();
                    List<String> mine = agentsOf.get(client % users);
                    long offset = interval * client / clients;
                    for (int n = 0; ; n++) {
                        long due = rate.isPresent() ? start + offset + n * interval : System.nanoTime();
                        if (due >= end) {
                            break;
                        }
                        long wait;
                        while ((wait = due - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        String agent = mine.get((client / users + n) % mine.size());
                        String text = tag + client + "-" + n;
                        try {
                            send.send(client, agent, text);
                            latencies.add(System.nanoTime() - due);
                            acknowledged.computeIfAbsent(agent, a -> ConcurrentHashMap.newKeySet()).add(text);
                        } catch (Exception e) {
                            errors.add(text + ": " + e.getMessage());
                        }
                    }
                } finally {
                    done.countDown();
                }
            });
        }
        done.await();
        double seconds = (System.nanoTime() - start) / 1e9;
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Result(sorted, List.copyOf(errors), acknowledged, seconds);
    }
}
