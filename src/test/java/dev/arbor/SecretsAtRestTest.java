package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.webhooks.StandardWebhookSignature;
import dev.arbor.testing.ChatCompletionsServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.KubernetesApiMock;
import dev.arbor.testing.SecuredMcpServer;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * Every kind of secret the server keeps, made with a marker, then looked for in everything the server writes: every
 * file of the data folder (the database, its write-ahead log, model logs), every row of a PostgreSQL database, and
 * every line logged (the server's own loggers at DEBUG) and a model worker's log — plain, as hex and as base64 at each of the three byte
 * alignments. A control marker in a field that is not secret proves that the scan reads what it claims to read.
 */
class SecretsAtRestTest {

    enum Store {
        SQLITE,
        POSTGRESQL
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void noSecretCanBeReadInTheDataFolderTheDatabaseOrTheLogs(Store store) throws Exception {
        String admin = marker("admin");
        String[] auth = {"Authorization", "Bearer " + admin};
        var secrets = new LinkedHashMap<String, String>();
        secrets.put("ARBOR_ADMIN_TOKEN", admin);
        String control = marker("control");
        Optional<String> databaseUrl =
                store == Store.POSTGRESQL ? Optional.of(TestPostgres.newDatabaseUrl()) : Optional.empty();

        try (var logs = new LogCapture();
                var secured = SecuredMcpServer.start(3600);
                var cloud = new ChatCompletionsServer(remember(secrets, "model api_key", marker("sk")), true)) {
            var env = new HashMap<String, String>();
            env.put("ARBOR_ADMIN_TOKEN", admin);
            env.put("ARBOR_OUTBOUND_ALLOW", "127.0.0.1,localhost");
            env.put("ARBOR_OAUTH_RETURN_HOSTS", "localhost,127.0.0.1");
            databaseUrl.ifPresent(url -> env.put("ARBOR_DATABASE_URL", url));
            Path data;
            try (var server = ArborServer.start(env)) {
                data = server.dataDir();
                TestServer http = server.http();
                String project = created(http.post("/projects", "{\"name\": \"" + control + "\"}", auth));

                secrets.put(
                        "token",
                        created(
                                http.post("/auth/tokens", "{\"name\": \"plain\", \"role\": \"admin\"}", auth),
                                "token"));
                String inferenceKey = created(
                        http.post("/keys", "{\"name\": \"app\", \"project_id\": \"" + project + "\"}", auth), "key");
                secrets.put("inference key", inferenceKey);
                // used: its check, a refusal outside its scope and one outside the inference routes all pass the logs
                http.post(
                        "/v1/chat/completions",
                        "{\"model\": \"nowhere\", \"messages\": []}",
                        "Authorization",
                        "Bearer " + inferenceKey);
                http.get("/routers", "Authorization", "Bearer " + inferenceKey);
                secrets.put(
                        "token made with an idempotency key",
                        created(
                                http.post(
                                        "/auth/tokens",
                                        "{\"name\": \"keyed\", \"role\": \"member\", \"projects\": [\"" + project
                                                + "\"]}",
                                        auth[0],
                                        auth[1],
                                        "Idempotency-Key",
                                        "k-secret"),
                                "token"));

                created(http.post(
                        "/credentials",
                        "{\"name\": \"hub.token\", \"value\": \"" + remember(secrets, "credential", marker("cred"))
                                + "\"}",
                        auth));

                created(http.post(
                        "/connectors/custom",
                        "{\"name\": \"Headers\", \"url\": \"http://127.0.0.1:9/mcp\", \"auth_type\": \"headers\", "
                                + "\"credentials\": {\"auth_headers\": [{\"key\": \"X-Api-Key\", \"value\": \""
                                + remember(secrets, "gateway header", marker("hdr")) + "\"}]}, "
                                + "\"scope\": {\"global\": true}}",
                        auth));

                String connection = created(http.post(
                        "/events/shared-connections",
                        "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \""
                                + remember(secrets, "event connection signing secret", marker("gh")) + "\"}, "
                                + "\"project_ids\": [\"" + project + "\"]}",
                        auth));
                // a rotation keeps the replaced secret, sealed, for its grace window
                HttpReply rotated = http.patch(
                        "/events/shared-connections/" + connection,
                        "{\"credentials\": {\"signing_secret\": \""
                                + remember(secrets, "rotated event signing secret", marker("gh2")) + "\"}}",
                        auth);
                assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
                HttpReply hooks = http.post(
                        "/events/shared-connections",
                        "{\"provider\": \"standard_webhooks\", \"project_ids\": [\"" + project + "\"]}",
                        auth);
                assertThat(hooks.status()).as(hooks.body()).isEqualTo(201);
                secrets.put(
                        "generated event signing secret",
                        hooks.json().path("signing_secret").asText());
                String hookUrl = hooks.json().path("webhook_url").asText();
                secrets.put("webhook URL token", hookUrl.substring(hookUrl.lastIndexOf('/') + 1));
                // a trigger's URL target: its signing secret, then the one a rotation gives (the old one is kept)
                HttpReply trigger = http.post(
                        "/triggers",
                        "{\"name\": \"hook\", \"project_id\": \"" + project + "\", \"connection_id\": \""
                                + connection + "\", \"event_types\": [\"push\"], "
                                + "\"target\": {\"url\": \"http://127.0.0.1:9/hook\"}}",
                        auth);
                secrets.put("trigger signing secret", created(trigger, "signing_secret"));
                secrets.put(
                        "rotated trigger signing secret",
                        created(
                                http.patch(
                                        "/triggers/" + created(trigger),
                                        "{\"rotate_secret\": true, \"project_id\": \"" + project + "\"}",
                                        auth),
                                "signing_secret"));

                String pipeline = created(http.post(
                        "/pipelines",
                        "{\"name\": \"hooked\", \"steps\": [{\"id\": \"a\", \"action\": \"set_output\", "
                                + "\"params\": {\"key\": \"v\", \"value\": 1}}]}",
                        auth));
                HttpReply pipelineHook = http.post("/pipelines/" + pipeline + "/webhook-secret", "{}", auth);
                assertThat(pipelineHook.status()).as(pipelineHook.body()).isEqualTo(200);
                String pipelineSecret = pipelineHook.json().path("secret").asText();
                secrets.put("pipeline webhook secret", pipelineSecret);
                long signedAt = System.currentTimeMillis() / 1000;
                HttpReply called = http.post(
                        "/pipelines/" + pipeline + "/webhook",
                        "{}",
                        "webhook-id",
                        "msg_at_rest",
                        "webhook-timestamp",
                        Long.toString(signedAt),
                        "webhook-signature",
                        StandardWebhookSignature.header(
                                pipelineSecret, "msg_at_rest", signedAt, "{}".getBytes(StandardCharsets.UTF_8)));
                assertThat(called.status()).as(called.body()).isEqualTo(202);

                authorize(http, auth, secured, remember(secrets, "OAuth client secret", marker("client")));
                List<String> accessTokens = secured.tokensSeen();
                assertThat(accessTokens).isNotEmpty();
                accessTokens.forEach(token -> secrets.put("OAuth access token " + token.length(), token));

                http.put(
                        "/notification-channels/email",
                        "{\"smtp_host\": \"127.0.0.1\", \"smtp_port\": 9, \"security\": \"none\", \"username\": "
                                + "\"bot\", \"from\": \"bot@arbor.test\", \"password\": \""
                                + remember(secrets, "SMTP password", marker("smtp")) + "\"}",
                        auth);
                http.post("/notification-channels/email/test", "{}", auth); // fails: nothing listens on port 9
                http.put(
                        "/notification-channels/team_chat_1",
                        "{\"webhook_url\": \"http://127.0.0.1:9/hooks/"
                                + remember(secrets, "chat webhook URL", marker("hook")) + "\"}",
                        auth);
                http.post("/notification-channels/team_chat_1/test", "{}", auth);

                try (var kubernetes = new KubernetesApiMock()) {
                    String kubeconfig = KubernetesApiMock.kubeconfig(
                            kubernetes.url(), remember(secrets, "kubeconfig token", marker("kube")));
                    HttpReply cluster = http.post(
                            "/clusters",
                            Json.object()
                                    .put("name", "at-rest")
                                    .put("kubeconfig", kubeconfig)
                                    .toString(),
                            auth);
                    assertThat(cluster.status()).as(cluster.body()).isEqualTo(201);
                    http.get("/clusters/" + created(cluster) + "/health", auth);
                }

                HttpReply model = http.post(
                        "/models",
                        "{\"model_uri\": \"" + cloud.url() + "\", \"model_name\": \"Cloud\", \"model_source\": "
                                + "\"cloud\", \"engine\": \"remote\", \"remote_model\": \"m\", \"api_key\": \""
                                + secrets.get("model api_key") + "\"}",
                        auth);
                assertThat(model.status()).as(model.body()).isEqualTo(201);
                HttpReply decision = http.post(
                        "/v1/studio/decisions",
                        "{\"model\": \"cloud\", \"state\": \"a customer asks for a refund\", \"questions\": "
                                + "{\"team\": {\"type\": \"choice\", \"criteria\": [\"billing\", \"tech\"]}}}",
                        auth);
                assertThat(decision.status()).as(decision.body()).isEqualTo(200);

                String workerLog = http.get("/models/cloud/logs", auth).body();
                assertThat(workerLog).isNotBlank();
                logs.add("the model worker's log", workerLog);

                assertNoneReadable(secrets, control, data, databaseUrl, logs); // while serving: the WAL is live
            }
            assertNoneReadable(secrets, control, data, databaseUrl, logs); // stopped: everything checkpointed
        }
    }

    private static void assertNoneReadable(
            Map<String, String> secrets, String control, Path data, Optional<String> databaseUrl, LogCapture logs)
            throws Exception {
        var places = new LinkedHashMap<String, String>();
        try (Stream<Path> files = Files.walk(data)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                places.put(data.relativize(file).toString(), Files.readString(file, StandardCharsets.ISO_8859_1));
            }
        }
        databaseUrl.ifPresent(url -> places.put("PostgreSQL rows", postgresRows(url)));
        places.put("the log", logs.text());
        places.putAll(logs.others());

        String stored = databaseUrl.isPresent() ? places.get("PostgreSQL rows") : String.join("\n", places.values());
        assertThat(stored).as("the scan reads the database").contains(control);
        assertThat(logs.text()).as("the scan reads the log").contains("starting a worker for cloud");

        var found = new ArrayList<String>();
        secrets.forEach((kind, secret) -> forms(secret)
                .forEach((form, text) -> places.forEach((place, content) -> {
                    if (content.contains(text)) {
                        found.add(kind + " (" + form + ") in " + place);
                    }
                })));
        assertThat(found).isEmpty();
    }

    /** The secret as it could be written: plain, as hex, as base64 and base64url at every byte alignment. */
    private static Map<String, String> forms(String secret) {
        byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
        var forms = new LinkedHashMap<String, String>();
        forms.put("plain", secret);
        forms.put("hex", HexFormat.of().formatHex(bytes));
        forms.put("HEX", HexFormat.of().withUpperCase().formatHex(bytes));
        for (int shift = 0; shift < 3; shift++) {
            byte[] shifted = new byte[shift + bytes.length];
            System.arraycopy(bytes, 0, shifted, shift, bytes.length);
            String encoded = Base64.getEncoder().withoutPadding().encodeToString(shifted);
            // the characters that depend only on the secret's bytes, whatever surrounds it
            String core = encoded.substring(shift == 0 ? 0 : 4, encoded.length() - 4);
            forms.put("base64+" + shift, core);
            forms.put("base64url+" + shift, core.replace('+', '-').replace('/', '_'));
        }
        return forms;
    }

    private static String postgresRows(String url) {
        var text = new StringBuilder();
        try (Connection connection = DriverManager.getConnection(url);
                var tables = connection
                        .createStatement()
                        .executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                                + "current_schema() AND table_type = 'BASE TABLE'")) {
            var names = new ArrayList<String>();
            while (tables.next()) {
                names.add(tables.getString(1));
            }
            assertThat(names).isNotEmpty();
            for (String table : names) {
                try (ResultSet rows =
                        connection.createStatement().executeQuery("SELECT t::text FROM \"" + table + "\" t")) {
                    while (rows.next()) {
                        text.append(table).append(' ').append(rows.getString(1)).append('\n');
                    }
                }
            }
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
        return text.toString();
    }

    /** A gateway authorized by OAuth end to end, its client secret sealed and its tokens used to fetch tools. */
    private static void authorize(TestServer http, String[] auth, SecuredMcpServer secured, String clientSecret)
            throws Exception {
        String gateway = created(http.post(
                "/connectors/custom",
                "{\"name\": \"Secured\", \"url\": \"" + secured.mcpUrl() + "\", \"auth_type\": \"oauth\", "
                        + "\"credentials\": {\"client_id\": \"arbor-console\", \"client_secret\": \"" + clientSecret
                        + "\"}, \"scope\": {\"global\": true}}",
                auth));
        String url = http.post(
                        "/connectors/" + gateway + "/oauth/initiate",
                        "{\"return_url\": \"http://localhost:5173/connections/oauth\"}",
                        auth)
                .json()
                .path("authorization_url")
                .asText();
        Map<String, String> query = secured.consent(url);
        HttpReply done = http.post(
                "/connectors/oauth/callback",
                "{\"code\": \"" + query.get("code") + "\", \"state\": \"" + query.get("state") + "\"}",
                auth);
        assertThat(done.json().path("status").asText()).as(done.body()).isEqualTo("authorized");
    }

    private static String created(HttpReply reply) {
        return created(reply, "id");
    }

    private static String created(HttpReply reply, String field) {
        assertThat(reply.status()).as(reply.body()).isIn(200, 201);
        String value = reply.json().path(field).asText();
        assertThat(value).as(reply.body()).isNotEmpty();
        return value;
    }

    private static String remember(Map<String, String> secrets, String kind, String secret) {
        secrets.put(kind, secret);
        return secret;
    }

    private static String marker(String kind) {
        return kind + "-" + UUID.randomUUID().toString().replace("-", "");
    }

    /** Everything logged while it is open, the server's own loggers at DEBUG. */
    private static final class LogCapture implements AutoCloseable {
        private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        private final Logger arbor = (Logger) LoggerFactory.getLogger("dev.arbor");
        private final Level arborLevel = arbor.getLevel();
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
        private final Map<String, String> others = new LinkedHashMap<>();

        LogCapture() {
            appender.setContext(root.getLoggerContext());
            appender.start();
            root.addAppender(appender);
            arbor.setLevel(Level.DEBUG);
        }

        /** A log kept elsewhere than the server's loggers. */
        void add(String place, String text) {
            others.put(place, text);
        }

        Map<String, String> others() {
            return Map.copyOf(others);
        }

        String text() {
            var text = new StringBuilder();
            for (ILoggingEvent event : List.copyOf(appender.list)) {
                text.append(event.getLoggerName()).append(' ').append(event.getFormattedMessage());
                event.getMDCPropertyMap()
                        .forEach(
                                (k, v) -> text.append(' ').append(k).append('=').append(v));
                if (event.getThrowableProxy() != null) {
                    text.append('\n').append(ThrowableProxyUtil.asString(event.getThrowableProxy()));
                }
                text.append('\n');
            }
            return text.toString();
        }

        @Override
        public void close() {
            root.detachAppender(appender);
            arbor.setLevel(arborLevel);
        }
    }
}
