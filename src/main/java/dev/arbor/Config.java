package dev.arbor;

import static java.util.Objects.requireNonNull;

import dev.arbor.clusters.ClusterSettings;
import dev.arbor.connectors.gateways.ConnectorSettings;
import dev.arbor.events.deliveries.DeliverySettings;
import dev.arbor.inference.RoutingSettings;
import dev.arbor.models.ModelSettings;
import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.Environment;
import dev.arbor.platform.config.StorageSettings;
import dev.arbor.platform.http.Access;
import dev.arbor.platform.http.server.HttpSettings;
import dev.arbor.platform.logging.LogFormat;
import dev.arbor.platform.outbound.AllowedDestination;
import dev.arbor.platform.tracing.TracingSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the server reads from its environment, read once at start and in this one place, as the settings of
 * each part. Flags on {@code serve} win over the {@code ARBOR_*} variables they mirror.
 *
 * @param adminToken a bootstrap admin token for the admin API
 * @param outboundAllow hosts, addresses or CIDR ranges that outbound calls may reach although they are private, each
 *     on any port or on the one it names ({@code ARBOR_OUTBOUND_ALLOW})
 * @param publicUrl the address providers reach this server at, without a trailing slash: webhook URLs start with it
 *     ({@code ARBOR_PUBLIC_URL}; by default the server's own address)
 * @param triggerRetryDelays how long a trigger's delivery to a URL waits before each attempt after the first
 *     ({@code ARBOR_TRIGGER_RETRY_SECONDS}, a comma list; {@code 60,300,600,900} by default: 5 attempts over 31
 *     minutes)
 * @param clusters how this machine's health is read ({@code ARBOR_NVIDIA_SMI}) and the images deployments run on
 *     Kubernetes ({@code ARBOR_SERVING_IMAGE_GPU}, {@code ARBOR_SERVING_IMAGE_CPU})
 * @param routing how inference requests treat model endpoints (timeouts, cooling down)
 * @param heartbeat how often this server refreshes its heartbeat on a database replicas share; one that missed four is
 *     counted as stopped, and the background decisions it ran are failed ({@code ARBOR_HEARTBEAT_SECONDS}, 10 by
 *     default)
 * @param deliveries how many refused webhook deliveries are recorded, how much of each, for how long, and how often a
 *     delivery may be replayed ({@code ARBOR_REFUSED_DELIVERIES_PER_HOUR}, {@code ARBOR_REFUSED_DELIVERY_BODY_CHARS},
 *     {@code ARBOR_REFUSED_DELIVERY_RETENTION_DAYS}, {@code ARBOR_DELIVERY_REPLAYS_PER_MINUTE})
 * @param tracing where traces are exported, if anywhere ({@code ARBOR_OTLP_ENDPOINT} and OpenTelemetry's
 *     {@code OTEL_*} variables)
 * @param auditRetention how long the audit log keeps a change ({@code ARBOR_AUDIT_RETENTION_DAYS}, 365 by default)
 */
public record Config(
        HttpSettings http,
        StorageSettings storage,
        Optional<String> adminToken,
        List<AllowedDestination> outboundAllow,
        ModelSettings models,
        ConnectorSettings connectors,
        Optional<String> publicUrl,
        List<Duration> triggerRetryDelays,
        ClusterSettings clusters,
        RoutingSettings routing,
        Duration heartbeat,
        DeliverySettings deliveries,
        TracingSettings tracing,
        Duration auditRetention) {
    static final String DEFAULT_HOST = "127.0.0.1";
    static final int DEFAULT_PORT = 8420;
    static final long DEFAULT_MAX_BODY_BYTES = 32L * 1024 * 1024;
    static final long DEFAULT_MIN_BODY_BYTES_PER_SECOND = 1024;
    /** A hundred years: longer is kept as long (a row's age in milliseconds must fit a long). */
    static final long MAX_AUDIT_RETENTION_DAYS = 36_500;

    public Config {
        requireNonNull(http, "http");
        requireNonNull(storage, "storage");
        requireNonNull(adminToken, "adminToken");
        outboundAllow = List.copyOf(outboundAllow);
        requireNonNull(models, "models");
        requireNonNull(connectors, "connectors");
        requireNonNull(publicUrl, "publicUrl");
        triggerRetryDelays = List.copyOf(triggerRetryDelays);
        requireNonNull(clusters, "clusters");
        requireNonNull(routing, "routing");
        requireNonNull(heartbeat, "heartbeat");
        requireNonNull(deliveries, "deliveries");
        requireNonNull(tracing, "tracing");
        requireNonNull(auditRetention, "auditRetention");
    }

    /** Reads the environment, then the {@code serve} flags ({@code --host}, {@code --port}, {@code --data}). */
    public static Config load(Map<String, String> variables, List<String> flags) {
        Map<String, String> values = withFlags(variables, flags);
        var env = new Environment(values);
        var http = new HttpSettings(
                env.text("ARBOR_HOST").orElse(DEFAULT_HOST),
                env.text("ARBOR_PORT").map(Config::port).orElse(DEFAULT_PORT),
                env.text("STUDIO_API_KEY"),
                env.list("STUDIO_CORS_ORIGINS", List.of()),
                env.list("ARBOR_TRUSTED_PROXIES", List.of()),
                env.text("ARBOR_MAX_BODY_BYTES").map(Config::bytes).orElse(DEFAULT_MAX_BODY_BYTES),
                env.text("ARBOR_LOG_LEVEL").orElse("INFO"),
                env.seconds("ARBOR_HEADER_TIMEOUT_SECONDS", 20),
                env.count("ARBOR_MAX_CONNECTIONS_PER_ADDRESS", "connections").orElse(256),
                env.count("ARBOR_LARGE_BODY_PERMITS", "requests"),
                env.seconds("ARBOR_LARGE_BODY_WAIT_SECONDS", 30),
                env.count("ARBOR_MAX_CONNECTIONS", "connections").orElseGet(HttpSettings::defaultMaxConnections),
                env.whole("ARBOR_MIN_BODY_BYTES_PER_SECOND", 0, "bytes per second")
                        .orElse(DEFAULT_MIN_BODY_BYTES_PER_SECOND),
                env.flag("ARBOR_METRICS_PUBLIC", false) ? Access.PUBLIC : Access.ADMIN,
                env.text("ARBOR_LOG_FORMAT").map(LogFormat::parse).orElse(LogFormat.TEXT));
        var storage = new StorageSettings(
                Path.of(env.text("ARBOR_DATA").orElse("data")).toAbsolutePath().normalize(),
                env.text("ARBOR_DATABASE_URL"),
                env.text("ARBOR_SECRET_KEY"),
                new StorageSettings.Pool(
                        env.count("ARBOR_DATABASE_POOL_SIZE", "connections")
                                .orElse(StorageSettings.Pool.DEFAULT.size()),
                        env.seconds(
                                "ARBOR_DATABASE_POOL_WAIT_SECONDS",
                                StorageSettings.Pool.DEFAULT.timeout().toSeconds())));
        var models = new ModelSettings(
                env.flag("ARBOR_TEST_MODELS", false),
                env.flag("ARBOR_AUTO_LOAD", true),
                env.seconds("ARBOR_MODEL_TIMEOUT_SECONDS", 600),
                env.seconds("ARBOR_MODEL_LOAD_TIMEOUT_SECONDS", 900),
                env.webUrl("ARBOR_MODEL_HUB_URL").orElse("https://huggingface.co"),
                !env.flag("ARBOR_NO_DOWNLOADS", false),
                Duration.ofSeconds(
                        env.whole("ARBOR_MODEL_IDLE_SECONDS", 0, "seconds").orElse(1800L)),
                env.whole("ARBOR_MODEL_MEMORY_MB", 1, "megabytes"));
        var connectors = new ConnectorSettings(
                env.seconds("ARBOR_MCP_TIMEOUT_SECONDS", 30),
                env.list("ARBOR_OAUTH_RETURN_HOSTS", List.of("localhost", "127.0.0.1")),
                env.list("ARBOR_MCP_STDIO_COMMANDS", List.of()),
                Duration.ofDays(
                        env.whole("ARBOR_MCP_AUDIT_RETENTION_DAYS", 1, "days").orElse(30L)));
        return new Config(
                http,
                storage,
                env.text("ARBOR_ADMIN_TOKEN"),
                env.list("ARBOR_OUTBOUND_ALLOW", List.of()).stream()
                        .map(Config::allowedDestination)
                        .toList(),
                models,
                connectors,
                env.webUrl("ARBOR_PUBLIC_URL"),
                env.list("ARBOR_TRIGGER_RETRY_SECONDS", List.of("60", "300", "600", "900")).stream()
                        .map(seconds -> Duration.ofSeconds(
                                Environment.whole("ARBOR_TRIGGER_RETRY_SECONDS", seconds, 1, "seconds")))
                        .toList(),
                new ClusterSettings(
                        env.text("ARBOR_NVIDIA_SMI").orElse(ClusterSettings.DEFAULT.nvidiaSmi()),
                        env.text("ARBOR_SERVING_IMAGE_GPU").orElse(ClusterSettings.DEFAULT.servingImageGpu()),
                        env.text("ARBOR_SERVING_IMAGE_CPU").orElse(ClusterSettings.DEFAULT.servingImageCpu())),
                new RoutingSettings(
                        env.seconds("ARBOR_ROUTING_TIMEOUT_SECONDS", 120),
                        env.whole("ARBOR_ROUTING_FAILURES_TO_COOL", 1, "failures")
                                .orElse(3L)
                                .intValue(),
                        env.seconds("ARBOR_ROUTING_COOLDOWN_SECONDS", 30),
                        env.seconds("ARBOR_ROUTING_CONNECT_TIMEOUT_SECONDS", 10),
                        env.seconds("ARBOR_ROUTING_TOTAL_TIMEOUT_SECONDS", 600)),
                env.seconds("ARBOR_HEARTBEAT_SECONDS", 10),
                deliveries(env),
                tracing(values, env),
                Duration.ofDays(env.whole("ARBOR_AUDIT_RETENTION_DAYS", 1, "days")
                        .map(days -> Math.min(days, MAX_AUDIT_RETENTION_DAYS))
                        .orElse(365L)));
    }

    /**
     * OpenTelemetry's own settings ({@code OTEL_*}, as its {@code otel.*} properties) and {@code ARBOR_OTLP_ENDPOINT},
     * which names the OTLP endpoint as {@code OTEL_EXPORTER_OTLP_ENDPOINT} does and wins over it.
     */
    private static TracingSettings tracing(Map<String, String> values, Environment env) {
        var properties = new HashMap<String, String>();
        values.forEach((name, value) -> {
            if (name.startsWith("OTEL_") && !value.isBlank()) {
                properties.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value.trim());
            }
        });
        env.webUrl("ARBOR_OTLP_ENDPOINT").ifPresent(url -> properties.put("otel.exporter.otlp.endpoint", url));
        return new TracingSettings(properties);
    }

    private static DeliverySettings deliveries(Environment env) {
        DeliverySettings defaults = DeliverySettings.DEFAULT;
        return new DeliverySettings(
                env.whole("ARBOR_REFUSED_DELIVERIES_PER_HOUR", 0, "deliveries")
                        .map(n -> (int) Math.min(n, Integer.MAX_VALUE))
                        .orElse(defaults.refusedPerHour()),
                env.whole("ARBOR_REFUSED_DELIVERY_BODY_CHARS", 0, "characters")
                        .map(n -> (int) Math.min(n, 64 * 1024))
                        .orElse(defaults.refusedBodyChars()),
                env.whole("ARBOR_REFUSED_DELIVERY_RETENTION_DAYS", 1, "days")
                        .map(Duration::ofDays)
                        .orElse(defaults.refusedRetention()),
                env.count("ARBOR_DELIVERY_REPLAYS_PER_MINUTE", "replays").orElse(defaults.replaysPerMinute()));
    }

    private static Map<String, String> withFlags(Map<String, String> variables, List<String> flags) {
        var values = new HashMap<>(variables);
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
        return values;
    }

    private static AllowedDestination allowedDestination(String entry) {
        try {
            return AllowedDestination.parse(entry);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("ARBOR_OUTBOUND_ALLOW: " + e.getMessage()
                    + " (a host name, an address or a CIDR range, with :port or [IPv6]:port for one port)");
        }
    }

    private static int port(String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new ConfigException("the port must be a number, not '" + value + "'");
        }
    }

    private static long bytes(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new ConfigException("ARBOR_MAX_BODY_BYTES must be a number of bytes, not '" + value + "'");
        }
    }
}
