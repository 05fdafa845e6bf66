package dev.arbor.platform.http.server;

import static java.util.Objects.requireNonNull;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.http.Access;
import dev.arbor.platform.logging.LogFormat;
import java.lang.management.ManagementFactory;
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
 * @param maxConnections how many connections the server holds open at once, from every address; by default
 *     {@link #defaultMaxConnections()}
 * @param minBodyBytesPerSecond the slowest a request body may arrive, on average since its first byte; a slower one
 *     is cut (408)
 * @param metricsAccess who may read {@code /metrics}: an admin ({@link Access#ADMIN}) or anyone
 *     ({@link Access#PUBLIC}, for a scraper on a trusted network)
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
        Duration largeBodyWait,
        int maxConnections,
        long minBodyBytesPerSecond,
        Access metricsAccess,
        LogFormat logFormat) {
    /** Descriptors kept for what is not a client's connection: the database, logs, jars, model workers' pipes. */
    private static final long RESERVED_DESCRIPTORS = 128;
    /** Where the descriptor limit cannot be read (not a Unix system). */
    private static final int FALLBACK_MAX_CONNECTIONS = 10_000;

    public HttpSettings {
        requireNonNull(host, "host");
        requireNonNull(studioApiKey, "studioApiKey");
        corsOrigins = List.copyOf(corsOrigins);
        trustedProxies = List.copyOf(trustedProxies);
        requireNonNull(logLevel, "logLevel");
        requireNonNull(headerTimeout, "headerTimeout");
        requireNonNull(largeBodyPermits, "largeBodyPermits");
        requireNonNull(largeBodyWait, "largeBodyWait");
        requireNonNull(metricsAccess, "metricsAccess");
        requireNonNull(logFormat, "logFormat");
        if (metricsAccess != Access.ADMIN && metricsAccess != Access.PUBLIC) {
            throw new IllegalArgumentException("/metrics is for admins or public, not " + metricsAccess);
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException("port must be between 0 and 65535, not " + port);
        }
        if (maxConnectionsPerAddress < 1) {
            throw new ConfigException("an address must be allowed at least 1 connection");
        }
        if (maxBodyBytes < 1024) {
            throw new ConfigException("the body limit must be at least 1024 bytes");
        }
        if (maxConnections < 1) {
            throw new ConfigException("the server must be allowed at least 1 connection");
        }
        if (minBodyBytesPerSecond < 0) {
            throw new ConfigException("the slowest body rate cannot be negative");
        }
    }

    /**
     * Half of the process's file descriptors left after a reserve for the server's own files: a request may make one
     * outbound call (a routed inference request does), which takes a descriptor of its own. At least 1.
     */
    public static int defaultMaxConnections() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
            long limit = unix.getMaxFileDescriptorCount();
            return Math.clamp((limit - RESERVED_DESCRIPTORS) / 2, 1, Integer.MAX_VALUE);
        }
        return FALLBACK_MAX_CONNECTIONS;
    }
}
