package dev.arbor.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.TwoProjectsContract;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Shared event connections (issue 21) on a real server: contract 2.2's scope rules, credentials checked against the
 * descriptor and never read back, the webhook URL and a generated signing secret shown once, rotation, and a member
 * kept out of other projects' connections. Runs once per database.
 */
abstract class SharedConnectionContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_shared_connections_admin";
    private static final String PUBLIC_URL = "https://hooks.example.com/arbor";
    private static final String PATH = "/events/shared-connections";

    private final MovableClock clock = new MovableClock();

    SharedConnectionContract() {
        super(ADMIN_SECRET, Map.of("ARBOR_PUBLIC_URL", PUBLIC_URL + "/"));
    }

    @Override
    protected Clock clock() {
        return clock;
    }

    enum Caller {
        ADMIN,
        MEMBER
    }

    /**
     * One create: who calls, the project its header names ({@code mine}, {@code theirs}, none), the
     * {@code project_ids} sent ({@code null}: left out; names stand for the projects), and what comes back.
     */
    record ScopeCase(
            String name,
            Caller caller,
            String header,
            List<String> projectIds,
            int status,
            String code,
            String param,
            boolean global,
            List<String> shared) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> scopeCases() {
        return Stream.of(
                        new ScopeCase(
                                "admin, no project_ids: global",
                                Caller.ADMIN,
                                null,
                                null,
                                201,
                                null,
                                null,
                                true,
                                List.of()),
                        new ScopeCase(
                                "member, no project_ids: admins only",
                                Caller.MEMBER,
                                "mine",
                                null,
                                403,
                                "admin_required",
                                "project_ids",
                                false,
                                List.of()),
                        new ScopeCase(
                                "admin, empty project_ids",
                                Caller.ADMIN,
                                "mine",
                                List.of(),
                                400,
                                "invalid_field",
                                "project_ids",
                                false,
                                List.of()),
                        new ScopeCase(
                                "member, empty project_ids",
                                Caller.MEMBER,
                                "mine",
                                List.of(),
                                400,
                                "invalid_field",
                                "project_ids",
                                false,
                                List.of()),
                        new ScopeCase(
                                "admin adds another project, deduplicated, current included",
                                Caller.ADMIN,
                                "mine",
                                List.of("theirs", "theirs"),
                                201,
                                null,
                                null,
                                false,
                                List.of("mine", "theirs")),
                        new ScopeCase(
                                "admin without a current project",
                                Caller.ADMIN,
                                null,
                                List.of("theirs"),
                                201,
                                null,
                                null,
                                false,
                                List.of("theirs")),
                        new ScopeCase(
                                "member, own project, deduplicated",
                                Caller.MEMBER,
                                "mine",
                                List.of("mine", "mine"),
                                201,
                                null,
                                null,
                                false,
                                List.of("mine")),
                        new ScopeCase(
                                "member, the current project added",
                                Caller.MEMBER,
                                "mine",
                                List.of("mine"),
                                201,
                                null,
                                null,
                                false,
                                List.of("mine")),
                        new ScopeCase(
                                "member adds another project",
                                Caller.MEMBER,
                                "mine",
                                List.of("mine", "theirs"),
                                403,
                                "project_forbidden",
                                "project_ids[1]",
                                false,
                                List.of()),
                        new ScopeCase(
                                "member names another current project",
                                Caller.MEMBER,
                                "theirs",
                                List.of("mine"),
                                403,
                                "project_forbidden",
                                "X-Project-Id",
                                false,
                                List.of()),
                        new ScopeCase(
                                "admin names no such project",
                                Caller.ADMIN,
                                null,
                                List.of("nope"),
                                404,
                                "project_not_found",
                                "project_ids[0]",
                                false,
                                List.of()))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scopeCases")
    void theScopeRulesOfContract22(ScopeCase scope) {
        var body = new StringBuilder("{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\"}");
        if (scope.projectIds() != null) {
            body.append(", \"project_ids\": [")
                    .append(String.join(
                            ", ",
                            scope.projectIds().stream()
                                    .map(p -> "\"" + id(p) + "\"")
                                    .toList()))
                    .append("]");
        }
        body.append("}");
        var headers = new ArrayList<>(List.of(scope.caller() == Caller.ADMIN ? admin() : member()));
        if (scope.header() != null) {
            headers.addAll(List.of("X-Project-Id", id(scope.header())));
        }
        int before = count(admin());

        HttpReply reply = http.post(PATH, body.toString(), headers.toArray(String[]::new));

        if (scope.code() != null) {
            reply.assertError(scope.status(), scope.code(), scope.param());
            assertThat(count(admin())).as("nothing written").isEqualTo(before);
            return;
        }
        assertThat(reply.status()).as(reply.body()).isEqualTo(201);
        assertThat(reply.json().path("global").asBoolean()).isEqualTo(scope.global());
        var shared = new ArrayList<String>();
        reply.json().path("project_ids").forEach(p -> shared.add(p.asText()));
        assertThat(shared)
                .containsExactlyInAnyOrderElementsOf(
                        scope.shared().stream().map(this::id).toList());
    }

    record InvalidCase(String name, String body, String param, String code) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> invalidCases() {
        return Stream.of(
                        new InvalidCase("no provider", "{\"credentials\": {}}", "provider", "missing_field"),
                        new InvalidCase(
                                "an unknown provider",
                                "{\"provider\": \"myspace\", \"credentials\": {}}",
                                "provider",
                                "invalid_field"),
                        new InvalidCase(
                                "a required field missing",
                                "{\"provider\": \"github\", \"credentials\": {}}",
                                "credentials.signing_secret",
                                "missing_field"),
                        new InvalidCase(
                                "an unknown credential field",
                                "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\", \"token\": "
                                        + "\"t\"}}",
                                "credentials.token",
                                "invalid_field"),
                        new InvalidCase(
                                "a Standard Webhooks secret without whsec_",
                                standardWebhooks(Base64.getEncoder().encodeToString(new byte[32])),
                                "credentials.signing_secret",
                                "invalid_field"),
                        new InvalidCase(
                                "a Standard Webhooks secret that is not base64",
                                standardWebhooks("whsec_not*base64!"),
                                "credentials.signing_secret",
                                "invalid_field"),
                        new InvalidCase(
                                "a Standard Webhooks key of 23 bytes",
                                standardWebhooks("whsec_" + Base64.getEncoder().encodeToString(new byte[23])),
                                "credentials.signing_secret",
                                "invalid_field"),
                        new InvalidCase(
                                "a Standard Webhooks key of 65 bytes",
                                standardWebhooks("whsec_" + Base64.getEncoder().encodeToString(new byte[65])),
                                "credentials.signing_secret",
                                "invalid_field"),
                        new InvalidCase(
                                "credentials not an object",
                                "{\"provider\": \"github\", \"credentials\": \"s\"}",
                                "credentials",
                                "invalid_field"),
                        new InvalidCase(
                                "an empty name",
                                "{\"provider\": \"github\", \"name\": \" \", \"credentials\": {\"signing_secret\": "
                                        + "\"s\"}}",
                                "name",
                                "invalid_field"))
                .map(Arguments::of);
    }

    private static String standardWebhooks(String secret) {
        return "{\"provider\": \"standard_webhooks\", \"credentials\": {\"signing_secret\": \"" + secret + "\"}}";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidCases")
    void aCreateTheDescriptorRefusesWritesNothing(InvalidCase invalid) {
        int before = count(admin());

        http.post(PATH, invalid.body(), admin()).assertError(400, invalid.code(), invalid.param());

        assertThat(count(admin())).isEqualTo(before);
    }

    @Test
    void everyMissingAndUnknownCredentialFieldIsNamedAndTheProvidersAreListed() {
        JsonNode error = http.post(PATH, "{\"provider\": \"slack\", \"credentials\": {\"extra\": \"x\"}}", admin())
                .assertError(400, "invalid_field", "credentials.extra");
        var params = new ArrayList<String>();
        error.path("details").forEach(d -> params.add(d.path("param").asText()));
        assertThat(params)
                .containsExactlyInAnyOrder("credentials.extra", "credentials.bot_token", "credentials.signing_secret");

        String message = http.post(PATH, "{\"provider\": \"myspace\"}", admin())
                .assertError(400, "invalid_field", "provider")
                .path("message")
                .asText();
        assertThat(message).contains("github", "stripe", "standard_webhooks");
    }

    @Test
    void noSecretIsEverReadBack() {
        String botToken = "xoxb-never-shown-" + System.nanoTime();
        String signing = "slack-signing-never-shown-" + System.nanoTime();
        HttpReply created = http.post(
                PATH,
                "{\"provider\": \"slack\", \"name\": \"Support Slack\", \"credentials\": {\"bot_token\": \"" + botToken
                        + "\", \"signing_secret\": \"" + signing + "\"}, \"project_ids\": [\"" + mine + "\"]}",
                admin());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().path("id").asText();
        HttpReply teams = http.post(
                PATH,
                "{\"provider\": \"teams\", \"credentials\": {\"tenant_id\": \"t-1\", \"app_id\": \"a-1\", "
                        + "\"client_secret\": \"" + signing + "-teams\", \"client_state\": \"" + signing
                        + "-state\"}}",
                admin());

        var reads = List.of(
                created,
                teams,
                http.get(PATH + "/" + id, admin()),
                http.get(PATH, admin()),
                http.get(PATH + "?project_id=" + mine, member()),
                http.patch(PATH + "/" + id, "{\"name\": \"Renamed\"}", admin()),
                http.patch(PATH + "/" + id, "{\"credentials\": {\"bot_token\": \"" + botToken + "\"}}", admin()));
        for (HttpReply read : reads) {
            assertThat(read.body()).doesNotContain(botToken).doesNotContain(signing);
        }
        JsonNode shown = http.get(PATH + "/" + id, admin()).json();
        assertThat(shown.path("name").asText()).isEqualTo("Renamed");
        assertThat(shown.path("credentials").path("bot_token_set").asBoolean()).isTrue();
        assertThat(shown.path("credentials").path("signing_secret_set").asBoolean())
                .isTrue();
        assertThat(shown.path("credentials").size()).isEqualTo(2);
        assertThat(teams.status()).as(teams.body()).isEqualTo(201);
        assertThat(teams.json().path("credentials").path("tenant_id").asText())
                .as("a plain field shows as given")
                .isEqualTo("t-1");
        assertThat(teams.json().path("credentials").path("client_secret_set").asBoolean())
                .isTrue();
    }

    @Test
    void theWebhookUrlAndAGeneratedSecretAreShownOnce() {
        HttpReply created =
                http.post(PATH, "{\"provider\": \"standard_webhooks\", \"project_ids\": [\"" + mine + "\"]}", member());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String url = created.json().path("webhook_url").asText();
        String secret = created.json().path("signing_secret").asText();
        assertThat(url).startsWith(PUBLIC_URL + "/events/hooks/");
        String token = url.substring(url.lastIndexOf('/') + 1);
        assertThat(token).as("at least 128 random bits").hasSizeGreaterThanOrEqualTo(22);
        assertThat(secret).startsWith("whsec_");
        assertThat(java.util.Base64.getDecoder().decode(secret.substring(6))).hasSize(32);
        assertThat(created.json().path("credentials").path("signing_secret_set").asBoolean())
                .isTrue();

        String id = created.json().path("id").asText();
        for (HttpReply read : List.of(http.get(PATH + "/" + id, admin()), http.get(PATH, admin()))) {
            assertThat(read.body()).doesNotContain(token).doesNotContain(secret.substring(6));
        }
        HttpReply second =
                http.post(PATH, "{\"provider\": \"standard_webhooks\", \"project_ids\": [\"" + mine + "\"]}", member());
        assertThat(second.json().path("webhook_url").asText()).isNotEqualTo(url);
        assertThat(second.json().path("signing_secret").asText()).isNotEqualTo(secret);
        assertThat(http.post(PATH, "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\"}}", admin())
                        .json()
                        .has("signing_secret"))
                .as("a secret the operator gave is not shown back")
                .isFalse();
    }

    @Test
    void aStandardWebhooksSecretTheSenderShowedIsKeptAndNotAnsweredBack() {
        String chosen = "whsec_" + Base64.getEncoder().encodeToString("a key the sender made: 32 bytes!".getBytes());

        HttpReply created = http.post(
                PATH,
                "{\"provider\": \"standard_webhooks\", \"credentials\": {\"signing_secret\": \"" + chosen
                        + "\"}, \"project_ids\": [\"" + mine + "\"]}",
                member());

        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().has("signing_secret")).as("nothing generated").isFalse();
        assertThat(created.json().path("credentials").path("signing_secret_set").asBoolean())
                .isTrue();
        assertThat(created.body()).doesNotContain(chosen.substring(6));
    }

    @Test
    void theStandardWebhooksDescriptorSaysTheSecretMayBeGivenOrGenerated() {
        JsonNode field = http.get("/events/descriptors?provider=standard_webhooks", admin())
                .json()
                .path("data")
                .path(0)
                .path("credentials")
                .path(0);

        assertThat(field.path("key").asText()).isEqualTo("signing_secret");
        assertThat(field.path("required").asBoolean()).isFalse();
        assertThat(field.path("generated").asBoolean()).isTrue();
    }

    @Test
    void aMemberMayNotReplaceTheCredentialsOfAConnectionSharedBeyondItsProjects() {
        String shared = create("[\"" + mine + "\", \"" + theirs + "\"]");
        long updatedAt =
                http.get(PATH + "/" + shared, admin()).json().path("updated_at").asLong();
        clock.advance(Duration.ofMinutes(5));

        http.patch(PATH + "/" + shared, "{\"credentials\": {\"signing_secret\": \"mine now\"}}", member())
                .assertError(403, "admin_required", "credentials");

        JsonNode after = http.get(PATH + "/" + shared, admin()).json();
        assertThat(after.path("updated_at").asLong()).isEqualTo(updatedAt);
        assertThat(after.path("previous_secret_expires_at").isNull())
                .as("no rotation")
                .isTrue();
    }

    @Test
    void aMemberReplacesTheCredentialsOfAConnectionOfItsOwnProjectsOnly() {
        String ours = create("[\"" + mine + "\"]");

        HttpReply rotated =
                http.patch(PATH + "/" + ours, "{\"credentials\": {\"signing_secret\": \"rotated\"}}", member());

        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
        assertThat(rotated.json().path("previous_secret_expires_at").isNull()).isFalse();
    }

    @Test
    void anAdminReplacesTheCredentialsOfAConnectionSharedWithSeveralProjects() {
        String shared = create("[\"" + mine + "\", \"" + theirs + "\"]");

        HttpReply rotated =
                http.patch(PATH + "/" + shared, "{\"credentials\": {\"signing_secret\": \"rotated\"}}", admin());

        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
        assertThat(rotated.json().path("previous_secret_expires_at").isNull()).isFalse();
    }

    @Test
    void aRotationKeepsThePreviousSigningSecretForTheGraceWindow() {
        HttpReply created =
                http.post(PATH, "{\"provider\": \"standard_webhooks\", \"project_ids\": [\"" + mine + "\"]}", admin());
        String id = created.json().path("id").asText();
        assertThat(created.json().path("previous_secret_expires_at").isNull()).isTrue();

        clock.advance(Duration.ofHours(1));
        long now = clock.instant().getEpochSecond();
        HttpReply rotated = http.patch(PATH + "/" + id, "{\"credentials\": {}}", admin());

        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
        assertThat(rotated.json().path("signing_secret").asText())
                .startsWith("whsec_")
                .isNotEqualTo(created.json().path("signing_secret").asText());
        assertThat(rotated.json().path("previous_secret_expires_at").asLong())
                .isBetween(
                        now + Duration.ofHours(24).toSeconds(),
                        now + Duration.ofHours(24).toSeconds() + 60);
        assertThat(http.get(PATH + "/" + id, admin()).json().has("signing_secret"))
                .isFalse();
    }

    @Test
    void aMemberIsKeptOutOfOtherProjectsConnections() {
        String ours = create("[\"" + mine + "\"]");
        String others = create("[\"" + theirs + "\"]");
        String everyone = http.post(
                        PATH, "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\"}}", admin())
                .json()
                .path("id")
                .asText();

        List<String> listed = http.get(PATH + "?limit=100", member()).ids();
        assertThat(listed).contains(ours, everyone).doesNotContain(others);
        assertThat(http.get(PATH + "?limit=100", "X-Project-Id", mine, "Authorization", "Bearer " + memberSecret)
                        .ids())
                .contains(ours, everyone)
                .doesNotContain(others);
        assertThat(http.get(PATH + "?limit=100&project_id=" + theirs, admin()).ids())
                .contains(others, everyone)
                .doesNotContain(ours);
        assertThat(http.get(PATH + "?limit=100", admin()).ids()).contains(ours, others, everyone);
        http.get(PATH + "?project_id=" + theirs, member()).assertError(403, "project_forbidden", "project_id");

        http.get(PATH + "/" + others, member()).assertError(403, "project_forbidden", "connection_id");
        http.patch(PATH + "/" + others, "{\"name\": \"mine now\"}", member())
                .assertError(403, "project_forbidden", "connection_id");
        http.delete(PATH + "/" + others, member()).assertError(403, "project_forbidden", "connection_id");
        assertThat(http.get(PATH + "/" + everyone, member()).status()).isEqualTo(200);
        http.patch(PATH + "/" + everyone, "{\"name\": \"x\"}", member())
                .assertError(403, "admin_required", "connection_id");
        http.delete(PATH + "/" + everyone, member()).assertError(403, "admin_required", "connection_id");
        http.get(PATH + "/esc_none", member()).assertError(404, "event_connection_not_found", "connection_id");
    }

    @Test
    void aPatchReplacesTheShareSetByTheSameRules() {
        String id = create("[\"" + mine + "\"]");

        http.patch(PATH + "/" + id, "{\"project_ids\": [\"" + theirs + "\"]}", member())
                .assertError(403, "project_forbidden", "project_ids[0]");
        http.patch(PATH + "/" + id, "{\"project_ids\": []}", admin()).assertError(400, "invalid_field", "project_ids");
        http.patch(PATH + "/" + id, "{\"project_ids\": null}", member())
                .assertError(403, "admin_required", "project_ids");
        assertThat(http.get(PATH + "/" + id, admin()).json().path("project_ids").size())
                .isEqualTo(1);

        JsonNode shared = http.patch(
                        PATH + "/" + id,
                        "{\"project_ids\": [\"" + theirs + "\", \"" + theirs + "\"]}",
                        "Authorization",
                        "Bearer " + ADMIN_SECRET,
                        "X-Project-Id",
                        mine)
                .json();
        assertThat(shared.path("project_ids").size()).isEqualTo(2);
        // a member sees, and replaces, only its own projects of the set: the others stay
        JsonNode seen = http.patch(
                        PATH + "/" + id, "{\"name\": \"ours\", \"project_ids\": [\"" + mine + "\"]}", member())
                .json();
        assertThat(seen.path("project_ids").size()).isEqualTo(1);
        assertThat(seen.path("project_ids").path(0).asText()).isEqualTo(mine);
        assertThat(http.get(PATH + "/" + id, admin()).json().path("project_ids").size())
                .isEqualTo(2);
        JsonNode global =
                http.patch(PATH + "/" + id, "{\"project_ids\": null}", admin()).json();
        assertThat(global.path("global").asBoolean()).isTrue();
        assertThat(global.path("project_ids").size()).isZero();
    }

    @Test
    void aMemberDeletesOnlyAConnectionOfItsOwnProjects() {
        String shared = create("[\"" + mine + "\", \"" + theirs + "\"]");

        JsonNode error =
                http.delete(PATH + "/" + shared, member()).assertError(403, "project_forbidden", "connection_id");

        assertThat(error.toString()).doesNotContain(theirs);
        assertThat(http.get(PATH + "/" + shared, member()).body()).doesNotContain(theirs);

        assertThat(http.get(PATH + "/" + shared, admin()).status()).isEqualTo(200);
    }

    @Test
    void aDeleteRemovesTheConnection() {
        String id = create("[\"" + mine + "\"]");

        HttpReply deleted = http.delete(PATH + "/" + id, member());

        assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        assertThat(deleted.json().path("deleted").asBoolean()).isTrue();
        assertThat(deleted.json().path("object").asText()).isEqualTo("event.shared_connection.deleted");
        assertThat(deleted.json().path("subscriptions_removed").asInt()).isZero();
        http.get(PATH + "/" + id, admin()).assertError(404, "event_connection_not_found", "connection_id");
        assertThat(http.get(PATH + "?limit=100", admin()).ids()).doesNotContain(id);
        String global = http.post(
                        PATH, "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\"}}", admin())
                .json()
                .path("id")
                .asText();
        assertThat(http.delete(PATH + "/" + global, admin()).status()).isEqualTo(200);
    }

    @Test
    void anIdempotencyKeyReplaysTheCreateWithItsSecretOnce() {
        String body = "{\"provider\": \"standard_webhooks\", \"project_ids\": [\"" + mine + "\"]}";
        int before = count(admin());
        HttpReply first = http.post(PATH, body, "Authorization", "Bearer " + ADMIN_SECRET, "Idempotency-Key", "esc-1");
        HttpReply again = http.post(PATH, body, "Authorization", "Bearer " + ADMIN_SECRET, "Idempotency-Key", "esc-1");

        assertThat(again.status()).isEqualTo(201);
        assertThat(again.json().path("id").asText())
                .isEqualTo(first.json().path("id").asText());
        assertThat(count(admin())).isEqualTo(before + 1);
    }

    @Test
    void theListIsPaged() {
        create("[\"" + mine + "\"]");
        create("[\"" + mine + "\"]");
        JsonNode page = http.get(PATH + "?limit=1", admin()).json();
        assertThat(page.path("object").asText()).isEqualTo("list");
        assertThat(page.path("data").size()).isEqualTo(1);
        assertThat(page.path("has_more").asBoolean()).isTrue();
        JsonNode next = http.get(PATH + "?limit=1&after=" + page.path("last_id").asText(), admin())
                .json();
        assertThat(next.path("data").path(0).path("id").asText())
                .isNotEqualTo(page.path("data").path(0).path("id").asText());
    }

    private String create(String projectIds) {
        HttpReply reply = http.post(
                PATH,
                "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"s\"}, \"project_ids\": "
                        + projectIds + "}",
                admin());
        assertThat(reply.status()).as(reply.body()).isEqualTo(201);
        return reply.json().path("id").asText();
    }

    private String id(String project) {
        return switch (project) {
            case "mine" -> mine;
            case "theirs" -> theirs;
            default -> project;
        };
    }

    private int count(String... headers) {
        return http.get(PATH + "?limit=100", headers).ids().size();
    }

    private String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN_SECRET};
    }

    private String[] member() {
        return new String[] {"Authorization", "Bearer " + memberSecret};
    }
}
