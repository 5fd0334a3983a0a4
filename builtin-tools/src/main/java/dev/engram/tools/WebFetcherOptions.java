package dev.engram.tools;

import java.time.Duration;
import java.util.Objects;

/**
 * Limits of the default {@link WebFetcher}.
 *
 * @param timeout          connect and response timeout
 * @param maxBytes         the largest body read; a larger page is refused
 * @param maxRedirects     redirects followed, each one checked like the first address
 * @param allowPrivateAddresses reach loopback, private, link-local and other non-public addresses
 *                         (off by default: an agent must not probe the network it runs in; on for tests)
 */
public record WebFetcherOptions(Duration timeout, int maxBytes, int maxRedirects, boolean allowPrivateAddresses) {
    public WebFetcherOptions {
        Objects.requireNonNull(timeout, "timeout");
        if (maxBytes < 1_024 || maxRedirects < 0) {
            throw new IllegalArgumentException("max bytes must be at least 1024 and max redirects not negative");
        }
    }

    /** 20 s, 2 MB, 5 redirects, public addresses only. */
    public static WebFetcherOptions defaults() {
        return new WebFetcherOptions(Duration.ofSeconds(20), 2_000_000, 5, false);
    }

    public WebFetcherOptions allowingPrivateAddresses() {
        return new WebFetcherOptions(timeout, maxBytes, maxRedirects, true);
    }
}
