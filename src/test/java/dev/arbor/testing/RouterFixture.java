package dev.arbor.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Routers for runtime tests, made as an admin: projects, member tokens, cloud models on scripted upstreams, and active
 * routers from their steps' JSON.
 */
public final class RouterFixture {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final TestServer http;
    private final String[] admin;

    public RouterFixture(TestServer http, String adminSecret) {
        this.http = http;
        this.admin = new String[] {"Authorization", "Bearer " + adminSecret};
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
