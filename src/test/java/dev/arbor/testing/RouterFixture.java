package dev.arbor.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.ArborServer;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server of its own for router runtime tests, and what they make on it as an admin: projects, member tokens, cloud
 * models on scripted upstreams, and active routers from their steps' JSON. Closing it stops the server and the
 * upstreams.
 */
public final class RouterFixture implements AutoCloseable {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final ArborServer server;
    private final TestServer http;
    private final String[] admin;
    private final Set<OpenAiUpstream> upstreams = new LinkedHashSet<>();

    private RouterFixture(ArborServer server, String adminSecret) {
        this.server = server;
        this.http = server.http();
        this.admin = new String[] {"Authorization", "Bearer " + adminSecret};
    }

    /**
     * Starts the server: {@code adminSecret} its admin token, upstreams on the loopback allowed, and a routing timeout
     * of 2 s so that a test of a silent upstream ends soon.
     */
    public static RouterFixture start(String adminSecret) {
        return start(adminSecret, Map.of());
    }

    /** {@link #start(String)} with these settings too (a database's URL, say; a routing timeout other than 2 s). */
    public static RouterFixture start(String adminSecret, Map<String, String> settings) {
        return new RouterFixture(ArborServer.start(env(adminSecret, settings)), adminSecret);
    }

    /** {@link #start(String, Map)} on a server whose idea of the time is {@code clock} (a budget's periods, say). */
    public static RouterFixture start(String adminSecret, Map<String, String> settings, java.time.Clock clock) {
        return new RouterFixture(ArborServer.start(env(adminSecret, settings), clock), adminSecret);
    }

    private static Map<String, String> env(String adminSecret, Map<String, String> settings) {
        var env = new java.util.HashMap<String, String>(settings);
        env.put("ARBOR_ADMIN_TOKEN", adminSecret);
        env.put("ARBOR_OUTBOUND_ALLOW", "127.0.0.1");
        env.putIfAbsent("ARBOR_ROUTING_TIMEOUT_SECONDS", "2");
        return Map.copyOf(env);
    }

    public TestServer http() {
        return http;
    }

    /** Stops the server, then every upstream a cloud model was made on. */
    @Override
    public void close() throws IOException {
        server.close();
        for (OpenAiUpstream upstream : upstreams) {
            upstream.close();
        }
    }

    /** An active router, its id and name. */
    public record Made(String id, String name) {}

    public String project(String name) {
        return ok(http.post("/projects", "{\"name\": \"" + name + "\"}", admin), 201)
                .json()
                .path("id")
                .asText();
    }

    /** The secret of a new member token of these projects. */
    public String member(String... projects) {
        String list = String.join("\", \"", projects);
        return ok(
                        http.post(
                                "/auth/tokens",
                                "{\"name\": \"app\", \"role\": \"member\", \"projects\": [\"" + list + "\"]}",
                                admin),
                        201)
                .json()
                .path("token")
                .asText();
    }

    /** A cloud model {@code id} on {@code upstream}, the upstream's name for it {@code remote}, with its own key. */
    public void cloudModel(String id, OpenAiUpstream upstream, String remote, String apiKey) {
        upstreams.add(upstream);
        ok(
                http.post(
                        "/models",
                        "{\"id\": \"" + id + "\", \"model_uri\": \"" + upstream.url() + "\", \"model_name\": \"" + id
                                + "\", \"model_source\": \"cloud\", \"engine\": \"remote\", \"remote_model\": \""
                                + remote + "\", \"api_key\": \"" + apiKey + "\"}",
                        admin),
                201);
    }

    /** An active router named {@code name} in {@code project} with these steps (the first is the entry). */
    public Made router(String project, String name, String steps) {
        String first = steps.replaceFirst("(?s).*?\"step_id\":\\s*\"([^\"]+)\".*", "$1");
        HttpReply created = ok(
                http.post(
                        "/routers",
                        "{\"project_id\": \"" + project + "\", \"name\": \"" + name + "\", \"dag_config\": "
                                + "{\"entry_step\": \"" + first + "\", \"steps\": [" + steps + "]}}",
                        admin),
                201);
        assertThat(created.json().path("status").asText()).isEqualTo("active");
        return new Made(created.json().path("id").asText(), name);
    }

    /** {@link #router(String, String, String)} with a fresh name. */
    public Made router(String project, String steps) {
        return router(project, "router-" + NAMES.incrementAndGet(), steps);
    }

    /** A single_endpoint step. */
    public static String single(String id, String endpoint) {
        return "{\"step_id\": \"" + id + "\", \"action_type\": \"single_endpoint\", \"params\": {\"endpoint\": \""
                + endpoint + "\"}}";
    }

    private static HttpReply ok(HttpReply reply, int status) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        return reply;
    }
}
