package dev.arbor.platform.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the server reads from its environment, read once at start. Flags on {@code serve} win over the
 * {@code ARBOR_*} variables they mirror.
 *
 * @param databaseUrl PostgreSQL when set; otherwise SQLite in the data folder
 * @param studioApiKey when set, every studio call must send it as a bearer token
 * @param corsOrigins origins of other sites allowed to call (with CORS headers), beside the server's own
 * @param adminToken a bootstrap admin token for the admin API
 * @param secretKey base64 AES key for secrets at rest; otherwise a generated key file in the data folder
 * @param outboundAllow hosts, addresses or CIDR ranges that outbound calls may reach although they are private
 * @param trustedProxies peers whose {@code X-Forwarded-For} names the real client
 * @param maxBodyBytes the largest request body accepted
 * @param logLevel the least important log level written; request lines are INFO
 * @param testModels whether the deterministic test models are in the catalog ({@code ARBOR_TEST_MODELS=1})
 * @param autoLoad whether a decision may start loading its model ({@code ARBOR_AUTO_LOAD}, on by default); when
 *     off, a decision on a model that is not loaded is {@code model_not_loaded}
 * @param modelTimeout how long a model may take to answer before {@code model_timeout}
 *     ({@code ARBOR_MODEL_TIMEOUT_SECONDS}, 600 by default)
 * @param modelLoadTimeout how long a decision waits for its model to load before {@code model_load_timeout}
 *     ({@code ARBOR_MODEL_LOAD_TIMEOUT_SECONDS}, 900 by default: the contract's 15 minutes)
 * @param modelHubUrl the model hub models are downloaded from ({@code ARBOR_MODEL_HUB_URL}, Hugging Face's layout
 *     and API; {@code https://huggingface.co} by default)
 * @param downloads whether models may be downloaded ({@code ARBOR_NO_DOWNLOADS=1} turns it off)
 * @param modelIdle how long a loaded model may go unused before it is ejected ({@code ARBOR_MODEL_IDLE_SECONDS},
 *     1800 by default, 0 for never)
 * @param modelMemoryMb how much memory the model workers may hold together before the least recently used go
 *     ({@code ARBOR_MODEL_MEMORY_MB}; by default three quarters of the machine's)
 * @param mcpTimeout how long a gateway's MCP server may take to answer before {@code upstream_timeout}
 *     ({@code ARBOR_MCP_TIMEOUT_SECONDS}, 30 by default)
 * @param oauthReturnHosts the hosts a gateway's OAuth authorization may return the browser to
 *     ({@code ARBOR_OAUTH_RETURN_HOSTS}; {@code localhost} and {@code 127.0.0.1} by default)
 * @param mcpStdioCommands the commands a stdio gateway may run ({@code ARBOR_MCP_STDIO_COMMANDS}; none by default)
 * @param headerTimeout how long a request's headers may take to arrive, from the connection's opening or the previous
 *     response ({@code ARBOR_HEADER_TIMEOUT_SECONDS}, 20 by default)
 * @param maxConnectionsPerAddress how many connections one address may hold open at once
 *     ({@code ARBOR_MAX_CONNECTIONS_PER_ADDRESS}, 256 by default)
 * @param largeBodyPermits how many bodies over {@code maxBodyBytes} (media inline) are read at once
 *     ({@code ARBOR_LARGE_BODY_PERMITS}; by default as many as fit in a quarter of the heap)
 * @param largeBodyWait how long such a body waits for its turn before {@code server_busy}
 *     ({@code ARBOR_LARGE_BODY_WAIT_SECONDS}, 30 by default)
 * @param publicUrl the address providers reach this server at, without a trailing slash: webhook URLs start with it
 *     ({@code ARBOR_PUBLIC_URL}, an absolute http or https URL; by default the server's own address)
 * @param triggerRetryDelays how long a trigger's delivery to a URL waits before each attempt after the first
 *     ({@code ARBOR_TRIGGER_RETRY_SECONDS}, a comma list; {@code 60,300,600,900} by default: 5 attempts over 31
 *     minutes)
 */
public record Config(
        String host,
        int port,
        Path dataDir,
        Optional<String> databaseUrl,
        Optional<String> studioApiKey,
        List<String> corsOrigins,
        Optional<String> adminToken,
        Optional<String> secretKey,
        List<String> outboundAllow,
        List<String> trustedProxies,
        long maxBodyBytes,
        String logLevel,
        boolean testModels,
        boolean autoLoad,
        java.time.Duration modelTimeout,
        java.time.Duration modelLoadTimeout,
        String modelHubUrl,
        boolean downloads,
        java.time.Duration modelIdle,
        Optional<Long> modelMemoryMb,
        java.time.Duration mcpTimeout,
        List<String> oauthReturnHosts,
        List<String> mcpStdioCommands,
        java.time.Duration headerTimeout,
        int maxConnectionsPerAddress,
        Optional<Integer> largeBodyPermits,
        java.time.Duration largeBodyWait,
        Optional<String> publicUrl,
        List<java.time.Duration> triggerRetryDelays) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8420;
    public static final long DEFAULT_MAX_BODY_BYTES = 32L * 1024 * 1024;

    public Config {
        requireNonNull(host, "host");
        requireNonNull(dataDir, "dataDir");
        requireNonNull(databaseUrl, "databaseUrl");
        requireNonNull(studioApiKey, "studioApiKey");
        corsOrigins = List.copyOf(corsOrigins);
        requireNonNull(adminToken, "adminToken");
        requireNonNull(secretKey, "secretKey");
        outboundAllow = List.copyOf(outboundAllow);
        trustedProxies = List.copyOf(trustedProxies);
        oauthReturnHosts = List.copyOf(oauthReturnHosts);
        mcpStdioCommands = List.copyOf(mcpStdioCommands);
        if (port < 0 || port > 65535) {
            throw new ConfigException("port must be between 0 and 65535, not " + port);
        }
        requireNonNull(logLevel, "logLevel");
        requireNonNull(modelTimeout, "modelTimeout");
        requireNonNull(modelLoadTimeout, "modelLoadTimeout");
        requireNonNull(modelHubUrl, "modelHubUrl");
        requireNonNull(modelIdle, "modelIdle");
        requireNonNull(modelMemoryMb, "modelMemoryMb");
        requireNonNull(headerTimeout, "headerTimeout");
        requireNonNull(largeBodyPermits, "largeBodyPermits");
        requireNonNull(largeBodyWait, "largeBodyWait");
        requireNonNull(publicUrl, "publicUrl");
        triggerRetryDelays = List.copyOf(triggerRetryDelays);
        if (maxConnectionsPerAddress < 1) {
            throw new ConfigException("an address must be allowed at least 1 connection");
        }
        if (maxBodyBytes < 1024) {
            throw new ConfigException("the body limit must be at least 1024 bytes");
        }
    }

    /** Reads the environment, then the {@code serve} flags ({@code --host}, {@code --port}, {@code --data}). */
    public static Config load(Map<String, String> env, List<String> flags) {
        var values = new HashMap<>(env);
        for (int i = 0; i < flags.size(); i++) {
            String flag = flags.get(i);
            String name = flag.contains("=") ? flag.substring(0, flag.indexOf('=')) : flag;
            String variable = switch (name) {
                case "--host" -> "ARBOR_HOST";
                case "--port" -> "ARBOR_PORT";
                case "--data" -> "ARBOR_DATA";
                case "--database-url" -> "ARBOR_DATABASE_URL";
                default ->
                    throw new ConfigException(
                            "unknown option " + name + " (known: --host, --port, --data, --database-url)");
            };
            String value;
            if (flag.contains("=")) {
                value = flag.substring(flag.indexOf('=') + 1);
            } else if (i + 1 < flags.size()) {
                value = flags.get(++i);
            } else {
                throw new ConfigException(name + " needs a value");
            }
            values.put(variable, value);
        }
        return new Config(
                text(values, "ARBOR_HOST").orElse(DEFAULT_HOST),
                text(values, "ARBOR_PORT").map(Config::port).orElse(DEFAULT_PORT),
                Path.of(text(values, "ARBOR_DATA").orElse("data"))
                        .toAbsolutePath()
                        .normalize(),
                text(values, "ARBOR_DATABASE_URL"),
                text(values, "STUDIO_API_KEY"),
                list(values, "STUDIO_CORS_ORIGINS"),
                text(values, "ARBOR_ADMIN_TOKEN"),
                text(values, "ARBOR_SECRET_KEY"),
                list(values, "ARBOR_OUTBOUND_ALLOW"),
                list(values, "ARBOR_TRUSTED_PROXIES"),
                text(values, "ARBOR_MAX_BODY_BYTES").map(Config::bytes).orElse(DEFAULT_MAX_BODY_BYTES),
                text(values, "ARBOR_LOG_LEVEL").orElse("INFO"),
                flag(values, "ARBOR_TEST_MODELS", false),
                flag(values, "ARBOR_AUTO_LOAD", true),
                java.time.Duration.ofSeconds(text(values, "ARBOR_MODEL_TIMEOUT_SECONDS")
                        .map(v -> seconds("ARBOR_MODEL_TIMEOUT_SECONDS", v))
                        .orElse(600L)),
                java.time.Duration.ofSeconds(text(values, "ARBOR_MODEL_LOAD_TIMEOUT_SECONDS")
                        .map(v -> seconds("ARBOR_MODEL_LOAD_TIMEOUT_SECONDS", v))
                        .orElse(900L)),
                text(values, "ARBOR_MODEL_HUB_URL").map(Config::hubUrl).orElse("https://huggingface.co"),
                !flag(values, "ARBOR_NO_DOWNLOADS", false),
                java.time.Duration.ofSeconds(text(values, "ARBOR_MODEL_IDLE_SECONDS")
                        .map(v -> whole("ARBOR_MODEL_IDLE_SECONDS", v, 0, "seconds"))
                        .orElse(1800L)),
                text(values, "ARBOR_MODEL_MEMORY_MB").map(v -> whole("ARBOR_MODEL_MEMORY_MB", v, 1, "megabytes")),
                java.time.Duration.ofSeconds(text(values, "ARBOR_MCP_TIMEOUT_SECONDS")
                        .map(v -> seconds("ARBOR_MCP_TIMEOUT_SECONDS", v))
                        .orElse(30L)),
                values.containsKey("ARBOR_OAUTH_RETURN_HOSTS")
                        ? list(values, "ARBOR_OAUTH_RETURN_HOSTS")
                        : List.of("localhost", "127.0.0.1"),
                list(values, "ARBOR_MCP_STDIO_COMMANDS"),
                java.time.Duration.ofSeconds(text(values, "ARBOR_HEADER_TIMEOUT_SECONDS")
                        .map(v -> seconds("ARBOR_HEADER_TIMEOUT_SECONDS", v))
                        .orElse(20L)),
                text(values, "ARBOR_MAX_CONNECTIONS_PER_ADDRESS")
                        .map(v -> count("ARBOR_MAX_CONNECTIONS_PER_ADDRESS", v, "connections"))
                        .orElse(256),
                text(values, "ARBOR_LARGE_BODY_PERMITS").map(v -> count("ARBOR_LARGE_BODY_PERMITS", v, "requests")),
                java.time.Duration.ofSeconds(text(values, "ARBOR_LARGE_BODY_WAIT_SECONDS")
                        .map(v -> seconds("ARBOR_LARGE_BODY_WAIT_SECONDS", v))
                        .orElse(30L)),
                text(values, "ARBOR_PUBLIC_URL").map(Config::publicUrl),
                (values.containsKey("ARBOR_TRIGGER_RETRY_SECONDS")
                                ? list(values, "ARBOR_TRIGGER_RETRY_SECONDS")
                                : List.of("60", "300", "600", "900"))
                        .stream()
                                .map(v -> java.time.Duration.ofSeconds(seconds("ARBOR_TRIGGER_RETRY_SECONDS", v)))
                                .toList());
    }

    private static String publicUrl(String value) {
        java.net.URI uri;
        try {
            uri = new java.net.URI(value);
        } catch (java.net.URISyntaxException e) {
            throw new ConfigException("ARBOR_PUBLIC_URL must be an absolute http or https URL, not " + value);
        }
        boolean web = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
        if (!web || uri.getHost() == null || uri.getQuery() != null || uri.getFragment() != null) {
            throw new ConfigException(
                    "ARBOR_PUBLIC_URL must be an absolute http or https URL without a query, not " + value);
        }
        return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    }

    private static String hubUrl(String value) {
        if (!value.startsWith("https://") && !value.startsWith("http://")) {
            throw new ConfigException("ARBOR_MODEL_HUB_URL must be an http or https URL, not " + value);
        }
        return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    }

    private static Optional<String> text(Map<String, String> env, String name) {
        String value = env.get(name);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    private static boolean flag(Map<String, String> env, String name, boolean fallback) {
        return text(env, name)
                .map(value -> switch (value.toLowerCase(java.util.Locale.ROOT)) {
                    case "1", "true", "yes", "on" -> true;
                    case "0", "false", "no", "off" -> false;
                    default -> throw new ConfigException(name + " must be 1 or 0, not '" + value + "'");
                })
                .orElse(fallback);
    }

    private static List<String> list(Map<String, String> env, String name) {
        return text(env, name)
                .map(v -> Arrays.stream(v.split(","))
                        .map(String::trim)
                        .filter(s -> !s.isEmpty())
                        .toList())
                .orElse(List.of());
    }

    private static int port(String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new ConfigException("the port must be a number, not '" + value + "'");
        }
    }

    private static long seconds(String name, String value) {
        return whole(name, value, 1, "seconds");
    }

    private static int count(String name, String value, String unit) {
        return (int) Math.min(whole(name, value, 1, unit), Integer.MAX_VALUE);
    }

    private static long whole(String name, String value, long least, String unit) {
        try {
            long number = Long.parseLong(value);
            if (number >= least) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException(
                name + " must be a whole number of " + unit + ", at least " + least + ", not '" + value + "'");
    }

    private static long bytes(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new ConfigException("ARBOR_MAX_BODY_BYTES must be a number of bytes, not '" + value + "'");
        }
    }
}
