package dev.arbor.platform.http.server;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How the HTTP server listens and what it lets in.
 *
 * @param studioApiKey when set, every studio call must send it as a bearer token
 * @param corsOrigins origins of other sites allowed to call (with CORS headers), beside the server's own
 * @param trustedProxies peers whose {@code X-Forwarded-For} names the real client
 * @param maxBodyBytes the largest request body accepted
 * @param logLevel the least important log level written; request lines are INFO
 * @param headerTimeout how long a request's headers may take to arrive, from the connection's opening or the previous
 *     response
 * @param maxConnectionsPerAddress how many connections one address may hold open at once
 * @param largeBodyPermits how many bodies over {@code maxBodyBytes} (media inline) are read at once; by default as
 *     many as fit in a quarter of the heap
 * @param largeBodyWait how long such a body waits for its turn before {@code server_busy}
 */
public record HttpSettings(
        String host,
        int port,
        Optional<String> studioApiKey,
        List<String> corsOrigins,
        List<String> trustedProxies,
        long maxBodyBytes,
        String logLevel,
        Duration headerTimeout,
        int maxConnectionsPerAddress,
        Optional<Integer> largeBodyPermits,
        Duration largeBodyWait) {
    public HttpSettings {
        requireNonNull(host, "host");
        requireNonNull(studioApiKey, "studioApiKey");
        corsOrigins = List.copyOf(corsOrigins);
        trustedProxies = List.copyOf(trustedProxies);
        requireNonNull(logLevel, "logLevel");
        requireNonNull(headerTimeout, "headerTimeout");
        requireNonNull(largeBodyPermits, "largeBodyPermits");
        requireNonNull(largeBodyWait, "largeBodyWait");
        if (port < 0 || port > 65535) {
            throw new ConfigException("port must be between 0 and 65535, not " + port);
        }
        if (maxConnectionsPerAddress < 1) {
            throw new ConfigException("an address must be allowed at least 1 connection");
        }
        if (maxBodyBytes < 1024) {
            throw new ConfigException("the body limit must be at least 1024 bytes");
        }
    }
}
