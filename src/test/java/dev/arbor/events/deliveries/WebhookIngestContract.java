package dev.arbor.events.deliveries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.EventSubscribers.Audience;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.StandardWebhookSigner;
import dev.arbor.testing.TwoProjectsContract;
import dev.arbor.testing.WebhookSigner;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Webhook ingest and the delivery log (issue 21) on a real server: deliveries signed by the providers' own libraries
 * are accepted, recorded and dispatched; bad, missing and stale signatures are 401 and recorded, never dispatched;
 * rotation's grace window; a repeated delivery id dispatched once; handshakes; the log's filters, masking and replay;
 * a member kept out of other projects' deliveries. Runs once per database.
 */
abstract class WebhookIngestContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_webhook_ingest_admin";
    private static final String CONNECTIONS = "/events/shared-connections";

    private final MovableClock clock = new MovableClock();

    /** Refused deliveries a connection records an hour, and replays a caller may ask of a connection a minute. */
    private static final int REFUSED_PER_HOUR = 5;

    private static final int REPLAYS_PER_MINUTE = 3;

    WebhookIngestContract() {
        super(
                ADMIN_SECRET,
                Map.of(
                        "ARBOR_REFUSED_DELIVERIES_PER_HOUR",
                        Integer.toString(REFUSED_PER_HOUR),
                        "ARBOR_DELIVERY_REPLAYS_PER_MINUTE",
                        Integer.toString(REPLAYS_PER_MINUTE)));
    }

    @Override
    protected Clock clock() {
        return clock;
    }

    /** A provider as the tests connect it: its credentials around the secret, and the header carrying its id. */
    record Provider(String name, String credentials, String idHeader) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Provider> providers() {
        return Stream.of(
                new Provider("github", "{\"signing_secret\": \"%s\"}", "X-GitHub-Delivery"),
                new Provider("stripe", "{\"signing_secret\": \"%s\"}", ""),
                new Provider("slack", "{\"bot_token\": \"xoxb-1\", \"signing_secret\": \"%s\"}", ""),
                new Provider("standard_webhooks", "{}", ""),
                new Provider("gitlab", "{\"secret_token\": \"%s\"}", "X-Gitlab-Event-UUID"),
                new Provider("shopify", "{\"client_secret\": \"%s\"}", "X-Shopify-Event-Id"));
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aDeliverySignedByTheProviderIsRecordedAndDispatched(Provider provider) {
        Hook hook = connect(provider, mine);
        JsonNode sample = sampleOf(provider.name());

        HttpReply reply = deliver(hook, sample.path("sample_event").toString(), now(), Map.of());

        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("duplicate").asBoolean()).isFalse();
        JsonNode delivery = dispatched(hook, reply.json().path("delivery_id").asText());
        assertThat(delivery.path("status").asText()).isEqualTo("accepted");
        assertThat(delivery.path("type").asText()).isEqualTo(sample.path("type").asText());
        assertThat(delivery.path("listed_type").asBoolean()).isTrue();
        assertThat(delivery.path("signature").path("secret").asText()).isEqualTo("current");
        assertThat(delivery.path("event").path("payload")).isEqualTo(sample.path("sample_event"));
        assertThat(delivery.path("event").path("connection_id").asText()).isEqualTo(hook.connectionId());
    }

    @Test
    void aStandardWebhooksSenderSigningWithTheSecretItGeneratedIsAccepted() {
        String chosen = "whsec_" + Base64.getEncoder().encodeToString(Ids.randomBytes(32));
        HttpReply created = http.post(
                CONNECTIONS,
                "{\"provider\": \"standard_webhooks\", \"credentials\": {\"signing_secret\": \"" + chosen
                        + "\"}, \"project_ids\": [\"" + mine + "\"]}",
                admin());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().has("signing_secret")).isFalse();
        String path = URI.create(created.json().path("webhook_url").asText()).getPath();
        String body = sampleOf("standard_webhooks").path("sample_event").toString();
        var headers = new ArrayList<>(List.of(StandardWebhookSigner.sign(
                new StandardWebhookSigner.Call(chosen, "msg_" + UUID.randomUUID(), now(), body))));
        headers.addAll(List.of("Content-Type", "application/json"));

        HttpReply reply = http.post(path, body, headers.toArray(String[]::new));

        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        Hook hook = new Hook(created.json().path("id").asText(), "standard_webhooks", path, chosen);
        assertThat(detail(hook, reply.json().path("delivery_id").asText())
                        .path("status")
                        .asText())
                .isEqualTo("accepted");
    }

    @Test
    void aSignedDeliveryStartsTheRunItsTriggerTargetsAndTheLogShowsIt() {
        Hook hook = connect(providers().findFirst().orElseThrow(), mine);
        HttpReply trigger = issuesTrigger(hook, mine);
        JsonNode opened = sampleOf("github");
        assertThat(opened.path("type").asText()).isEqualTo("issues.opened");

        HttpReply reply = deliver(hook, opened.path("sample_event").toString(), now(), Map.of());

        String deliveryId = reply.json().path("delivery_id").asText();
        dispatched(hook, deliveryId);
        JsonNode firing = detail(hook, deliveryId).path("firings").path(0);
        assertThat(firing.path("trigger_id").asText())
                .isEqualTo(trigger.json().path("id").asText());
        String run = firing.path("run_id").asText();
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> http.get("/runs/" + run, admin())
                                .json()
                                .path("status")
                                .asText(),
                        "completed"::equals);
        assertThat(http.get("/runs/" + run, admin())
                        .json()
                        .path("steps")
                        .path(0)
                        .path("outputs")
                        .path("seen")
                        .asText())
                .isEqualTo("issues.opened: Found a bug");
    }

    @Test
    void aMemberSeesTheFiringsOfItsOwnProjectsTriggersOnly() {
        Hook hook = sharedByBothProjects();
        issuesTrigger(hook, theirs);

        String deliveryId = sampleDispatched(hook);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> detail(hook, deliveryId).path("firings").size(), count -> count == 1);
        HttpReply asMember = http.get(deliveries(hook) + "/" + deliveryId, member());
        assertThat(asMember.status()).as(asMember.body()).isEqualTo(200);
        assertThat(asMember.json().path("firings")).isEmpty();
    }

    /** A way a delivery's signature fails, and the reason the log records. */
    record Refusal(String name, Provider provider, String reason) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Refusal> refusals() {
        List<Provider> all = providers().toList();
        return Stream.of(
                new Refusal("github, signed with another secret", all.get(0), "bad_signature"),
                new Refusal("github, no signature", all.get(0), "missing_header"),
                new Refusal("stripe, signed 6 minutes ago", all.get(1), "timestamp_outside_tolerance"),
                new Refusal("slack, signed 6 minutes ago", all.get(2), "timestamp_outside_tolerance"),
                new Refusal("standard webhooks, signed 6 minutes ago", all.get(3), "timestamp_outside_tolerance"),
                new Refusal("gitlab, another token", all.get(4), "bad_signature"),
                new Refusal("shopify, body changed after signing", all.get(5), "bad_signature"));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void aDeliveryWhoseSignatureFailsIs401AndRecordedNeverDispatched(Refusal refusal) {
        Hook hook = connect(refusal.provider(), mine);
        String body = sampleOf(refusal.provider().name()).path("sample_event").toString();
        Map<String, String> headers = switch (refusal.reason()) {
            case "missing_header" -> Map.of();
            case "timestamp_outside_tolerance" -> sign(hook, body, now() - 360, "msg_stale");
            default ->
                refusal.name().contains("body changed")
                        ? sign(hook, body.replace("jon@example.com", "eve@example.com"), now(), "msg_1")
                        : sign(hook.withSecret("not-the-secret"), body, now(), "msg_1");
        };

        HttpReply reply = post(hook, body, headers, refusal.provider());

        reply.assertError(401, "invalid_signature", null);
        JsonNode list = http.get(deliveries(hook) + "?status=refused", admin()).json();
        assertThat(list.path("data").size()).isEqualTo(1);
        JsonNode refused = list.path("data").path(0);
        assertThat(refused.path("signature").path("valid").asBoolean()).isFalse();
        assertThat(refused.path("signature").path("reason").asText()).isEqualTo(refusal.reason());
        assertThat(refused.path("dispatch").path("status").asText()).isEqualTo("never");
        assertThat(http.get(deliveries(hook) + "?status=accepted", admin())
                        .json()
                        .path("data")
                        .size())
                .isZero();
    }

    @Test
    void refusedDeliveriesBeyondTheHoursLimitAreCountedNotRecorded() {
        Hook hook = connect(providers().toList().getFirst(), mine);
        String body = largeBody();
        int sent = REFUSED_PER_HOUR + 7;
        String notRecorded = refusals(hook, "not_recorded");
        String recorded = refusals(hook, "recorded");
        double notRecordedBefore = metric(notRecorded);
        double recordedBefore = metric(recorded);

        for (int i = 0; i < sent; i++) {
            deliver(hook.withSecret("not-the-secret"), body, now(), Map.of())
                    .assertError(401, "invalid_signature", null);
        }

        assertThat(http.get(deliveries(hook) + "?status=refused&limit=100", admin())
                        .ids())
                .hasSize(REFUSED_PER_HOUR);
        HttpReply connection = http.get(CONNECTIONS + "/" + hook.connectionId(), admin());
        assertThat(connection.json().path("refused_not_recorded").asLong()).isEqualTo(sent - REFUSED_PER_HOUR);
        assertThat(metric(notRecorded) - notRecordedBefore).isEqualTo(sent - REFUSED_PER_HOUR);
        assertThat(metric(recorded) - recordedBefore).isEqualTo(REFUSED_PER_HOUR);
        assertThat(http.get("/metrics", admin()).body()).doesNotContain(hook.connectionId());
    }

    /** The series counting the hook's provider's refused deliveries with {@code outcome}: ids stay out of labels. */
    private static String refusals(Hook hook, String outcome) {
        return "arbor_event_deliveries_refused_total{outcome=\"" + outcome + "\",provider=\"" + hook.provider() + "\"}";
    }

    /** A series' value on /metrics, 0 before it is first counted. */
    private double metric(String series) {
        return http.get("/metrics", admin())
                .body()
                .lines()
                .filter(line -> line.startsWith(series + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1)))
                .findFirst()
                .orElse(0);
    }

    @Test
    void aRefusedDeliveryKeepsOnlyAPrefixOfItsBodyMarkedTruncated() {
        Hook hook = connect(providers().toList().getFirst(), mine);
        String body = largeBody();

        deliver(hook.withSecret("not-the-secret"), body, now(), Map.of()).assertError(401, "invalid_signature", null);

        String id =
                http.get(deliveries(hook) + "?status=refused", admin()).ids().getFirst();
        JsonNode refused = detail(hook, id);
        assertThat(refused.path("body").asText()).isEqualTo(body.substring(0, 1024));
        assertThat(refused.path("body_truncated").asBoolean()).isTrue();
        assertThat(refused.path("body_bytes").asLong()).isEqualTo(body.length());
        assertThat(refused.path("headers").path("x-github-event").asText()).isEqualTo("issues");
    }

    @Test
    void aSecretAcrossTheCutOfARefusedBodyLeavesNoPrefixOfItself() {
        Provider gitlab = providers().toList().get(4);
        Hook hook = connect(gitlab, mine);
        String body = "x".repeat(1020) + hook.secret() + "x".repeat(100);

        post(hook, body, Map.of("X-Gitlab-Token", "wrong"), gitlab).assertError(401, "invalid_signature", null);

        String id =
                http.get(deliveries(hook) + "?status=refused", admin()).ids().getFirst();
        assertThat(detail(hook, id).path("body").asText()).isEqualTo("x".repeat(1020) + "[mas");
    }

    @Test
    void aShortRefusedBodyIsKeptWholeAndNotMarkedTruncated() {
        Hook hook = connect(providers().toList().getFirst(), mine);
        String body = sampleOf("github").path("sample_event").toString();

        deliver(hook.withSecret("not-the-secret"), body, now(), Map.of()).assertError(401, "invalid_signature", null);

        String id =
                http.get(deliveries(hook) + "?status=refused", admin()).ids().getFirst();
        JsonNode refused = detail(hook, id);
        assertThat(refused.path("body").asText()).isEqualTo(body);
        assertThat(refused.path("body_truncated").asBoolean()).isFalse();
        assertThat(refused.path("body_bytes").isNull()).isTrue();
    }

    @Test
    void theNextHourRecordsRefusedDeliveriesAgain() {
        Hook hook = connect(providers().toList().getFirst(), mine);
        String body = sampleOf("github").path("sample_event").toString();
        for (int i = 0; i <= REFUSED_PER_HOUR; i++) {
            deliver(hook.withSecret("not-the-secret"), body, now(), Map.of());
        }

        clock.advance(Duration.ofHours(1));
        deliver(hook.withSecret("not-the-secret"), body, now(), Map.of()).assertError(401, "invalid_signature", null);

        assertThat(http.get(deliveries(hook) + "?status=refused&limit=100", admin())
                        .ids())
                .hasSize(REFUSED_PER_HOUR + 1);
        assertThat(http.get(CONNECTIONS + "/" + hook.connectionId(), admin())
                        .json()
                        .path("refused_not_recorded")
                        .asLong())
                .isEqualTo(1);
    }

    /** A GitHub issue event padded to 10 KB of ASCII. */
    private String largeBody() {
        ObjectNode event = (ObjectNode) sampleOf("github").path("sample_event").deepCopy();
        event.put("padding", "x".repeat(10_000));
        return event.toString();
    }

    @Test
    void theSecretARotationReplacedIsAcceptedForTheGraceWindowOnly() {
        Provider github = providers().toList().getFirst();
        Hook old = connect(github, mine);
        String body = sampleOf("github").path("sample_event").toString();
        HttpReply rotated = http.patch(
                CONNECTIONS + "/" + old.connectionId(),
                "{\"credentials\": {\"signing_secret\": \"rotated-" + UUID.randomUUID() + "\"}}",
                admin());
        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);

        HttpReply during = deliver(old, body, now(), Map.of());
        assertThat(during.status()).as(during.body()).isEqualTo(200);
        assertThat(detail(old, during.json().path("delivery_id").asText())
                        .path("signature")
                        .path("secret")
                        .asText())
                .isEqualTo("previous");

        clock.advance(Duration.ofHours(25));
        deliver(old, body, now(), Map.of()).assertError(401, "invalid_signature", null);
    }

    @Test
    void aRepeatedDeliveryIdIsAcceptedAndDispatchedOnce() {
        Hook hook = connect(providers().toList().getFirst(), mine);
        String body = sampleOf("github").path("sample_event").toString();
        String id = UUID.randomUUID().toString();

        HttpReply first = deliver(hook, body, now(), Map.of("X-GitHub-Delivery", id));
        HttpReply again = deliver(hook, body, now(), Map.of("X-GitHub-Delivery", id));

        assertThat(again.status()).as(again.body()).isEqualTo(200);
        assertThat(again.json().path("duplicate").asBoolean()).isTrue();
        assertThat(again.json().path("delivery_id").asText())
                .isEqualTo(first.json().path("delivery_id").asText());
        JsonNode delivery = dispatched(hook, first.json().path("delivery_id").asText());
        assertThat(delivery.path("duplicates").asInt()).isEqualTo(1);
        assertThat(delivery.path("dispatch").path("rounds").asInt()).isEqualTo(1);
        assertThat(http.get(deliveries(hook), admin()).json().path("data").size())
                .isEqualTo(1);
    }

    @Test
    void handshakesAreAnsweredAndNotRecorded() {
        List<Provider> all = providers().toList();
        Hook slack = connect(all.get(2), mine);
        String challenge =
                "{\"token\": \"t\", \"challenge\": \"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P\", "
                        + "\"type\": \"url_verification\"}";
        HttpReply slackReply = post(slack, challenge, sign(slack, challenge, now(), "x"), all.get(2));
        assertThat(slackReply.status()).as(slackReply.body()).isEqualTo(200);
        assertThat(slackReply.body()).isEqualTo("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");
        assertThat(slackReply.header("content-type")).startsWith("text/plain");

        Hook github = connect(all.get(0), mine);
        String zen = "{\"zen\": \"Keep it logically awesome.\", \"hook_id\": 1}";
        Map<String, String> pingHeaders = new HashMap<>(sign(github, zen, now(), "x"));
        pingHeaders.put("X-GitHub-Event", "ping");
        HttpReply ping = post(github, zen, pingHeaders, null);
        assertThat(ping.status()).as(ping.body()).isEqualTo(200);
        assertThat(ping.json().path("ok").asBoolean()).isTrue();

        Hook teams = connectWith(
                "teams",
                "{\"tenant_id\": \"t\", \"app_id\": \"a\", \"client_secret\": \"c\", \"client_state\": \"st\"}",
                "st",
                mine);
        HttpReply validation = http.post(teams.path() + "?validationToken=Validation%3A+Testing", "");
        assertThat(validation.status()).as(validation.body()).isEqualTo(200);
        assertThat(validation.body()).isEqualTo("Validation: Testing");

        for (Hook hook : List.of(slack, github, teams)) {
            assertThat(http.get(deliveries(hook), admin()).json().path("data").size())
                    .isZero();
        }
    }

    @Test
    void anUnknownTokenIs404AndNothingIsRecorded() {
        Hook hook = connect(providers().toList().getFirst(), mine);
        String body = sampleOf("github").path("sample_event").toString();
        String unknown = "/events/hooks/" + "A".repeat(43);

        http.post(unknown, body, "X-GitHub-Event", "issues").assertError(404, "hook_not_found", null);
        http.post("/events/hooks/short", body).assertError(404, "hook_not_found", null);
        // the token is the whole path segment: a neighbour's token with a letter changed is unknown too
        String changed = hook.path().substring(0, hook.path().length() - 1)
                + (hook.path().endsWith("A") ? "B" : "A");
        http.post(changed, body, "X-GitHub-Event", "issues").assertError(404, "hook_not_found", null);
        assertThat(http.get(deliveries(hook), admin()).json().path("data").size())
                .isZero();
    }

    @Test
    void aSignedDeliveryThatCannotBeReadIsRecordedUnreadable() {
        Hook hook = connect(providers().toList().getFirst(), mine);

        deliver(hook, "not json at all", now(), Map.of()).assertError(400, "unreadable_delivery", null);

        JsonNode list =
                http.get(deliveries(hook) + "?status=unreadable", admin()).json();
        assertThat(list.path("data").size()).isEqualTo(1);
        JsonNode detail = detail(hook, list.path("data").path(0).path("id").asText());
        assertThat(detail.path("body").asText()).isEqualTo("not json at all");
        assertThat(detail.path("errors").path(0).path("stage").asText()).isEqualTo("reading");
        assertThat(detail.path("dispatch").path("status").asText()).isEqualTo("never");
    }

    @Test
    void anEventTypeTheDescriptorDoesNotListIsKeptWithItsType() {
        Hook hook = connect(providers().toList().getFirst(), mine);

        HttpReply reply = deliver(hook, "{\"action\": \"invented\"}", now(), Map.of("X-GitHub-Event", "gadgets"));

        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode delivery = dispatched(hook, reply.json().path("delivery_id").asText());
        assertThat(delivery.path("type").asText()).isEqualTo("gadgets.invented");
        assertThat(delivery.path("listed_type").asBoolean()).isFalse();
    }

    @Test
    void theDetailMasksSecretsAndTheListFiltersByStatusAndType() {
        Provider gitlab = providers().toList().get(4);
        Hook hook = connect(gitlab, mine);
        JsonNode sample = sampleOf("gitlab");
        String body = sample.path("sample_event").toString();
        String accepted = deliver(hook, body, now(), Map.of("Cookie", "session=abc"))
                .json()
                .path("delivery_id")
                .asText();
        post(hook, body, Map.of("X-Gitlab-Token", hook.secret() + "-wrong"), gitlab)
                .assertError(401, "invalid_signature", null);

        JsonNode detail = detail(hook, accepted);
        assertThat(detail.toString()).doesNotContain(hook.secret()).doesNotContain("session=abc");
        assertThat(detail.path("headers").path("x-gitlab-token").asText()).isEqualTo("[masked]");
        assertThat(detail.path("headers").path("cookie").asText()).isEqualTo("[masked]");
        assertThat(detail.path("payload")).isEqualTo(sample.path("sample_event"));
        assertThat(detail.path("event").path("type").asText())
                .isEqualTo(sample.path("type").asText());
        assertThat(detail.path("firings").isArray()).isTrue();
        assertThat(detail.path("errors").size()).isZero();
        JsonNode refused = http.get(deliveries(hook) + "?status=refused", admin())
                .json()
                .path("data")
                .path(0);
        assertThat(detail(hook, refused.path("id").asText()).toString()).doesNotContain(hook.secret());

        assertThat(http.get(deliveries(hook), admin()).ids()).hasSize(2);
        assertThat(http.get(deliveries(hook) + "?status=accepted", admin()).ids())
                .containsExactly(accepted);
        assertThat(http.get(deliveries(hook) + "?type=" + sample.path("type").asText(), admin())
                        .ids())
                .containsExactly(accepted);
        assertThat(http.get(deliveries(hook) + "?type=merge_request.open", admin())
                        .ids())
                .isEmpty();
        http.get(deliveries(hook) + "?status=lost", admin()).assertError(400, "invalid_parameter", "status");
        JsonNode page = http.get(deliveries(hook) + "?limit=1", admin()).json();
        assertThat(page.path("has_more").asBoolean()).isTrue();
    }

    @Test
    void aReplayDispatchesAnAcceptedDeliveryAgainAndRefusesARefusedOne() {
        Hook hook = connect(providers().toList().getFirst(), mine);
        String body = sampleOf("github").path("sample_event").toString();
        String accepted =
                deliver(hook, body, now(), Map.of()).json().path("delivery_id").asText();
        dispatched(hook, accepted);

        HttpReply replayed = http.action(deliveries(hook) + "/" + accepted + "/replay", admin());

        assertThat(replayed.status()).as(replayed.body()).isEqualTo(202);
        assertThat(replayed.json().path("id").asText()).isEqualTo(accepted);
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        detail(hook, accepted).path("dispatch").path("rounds").asInt() == 2);
        deliver(hook.withSecret("wrong"), body, now(), Map.of()).assertError(401, "invalid_signature", null);
        String refused = http.get(deliveries(hook) + "?status=refused", admin())
                .json()
                .path("data")
                .path(0)
                .path("id")
                .asText();
        http.action(deliveries(hook) + "/" + refused + "/replay", admin())
                .assertError(409, "delivery_not_replayable", "delivery_id");
        http.get(deliveries(hook) + "/evd_none", admin()).assertError(404, "delivery_not_found", "delivery_id");
    }

    @Test
    void aMembersReplayFiresOnlyItsOwnProjectsTriggersAndAnAdminsFiresAll() {
        Hook hook = sharedByBothProjects();
        String ours = issuesTrigger(hook, mine).json().path("id").asText();
        String others = issuesTrigger(hook, theirs).json().path("id").asText();
        String deliveryId = sampleDispatched(hook);

        HttpReply byMember = http.action(deliveries(hook) + "/" + deliveryId + "/replay", member());

        assertThat(byMember.status()).as(byMember.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        detail(hook, deliveryId).path("dispatch").path("rounds").asInt() == 2);
        assertThat(firedIn(hook, deliveryId, 1)).containsExactly(ours);

        HttpReply byAdmin = http.action(deliveries(hook) + "/" + deliveryId + "/replay", admin());
        assertThat(byAdmin.status()).as(byAdmin.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        detail(hook, deliveryId).path("dispatch").path("rounds").asInt() == 3);
        assertThat(firedIn(hook, deliveryId, 2)).containsExactlyInAnyOrder(ours, others);
    }

    @Test
    void replaysBeyondTheLimitAre429WithRetryAfterForThatCallerOnly() {
        Hook hook = sharedByBothProjects();
        String deliveryId = sampleDispatched(hook);
        String replay = deliveries(hook) + "/" + deliveryId + "/replay";
        for (int i = 0; i < REPLAYS_PER_MINUTE; i++) {
            HttpReply allowed = http.action(replay, member());
            assertThat(allowed.status()).as(allowed.body()).isEqualTo(202);
        }

        HttpReply refused = http.action(replay, member());

        refused.assertError(429, "rate_limited", null);
        assertThat(Long.parseLong(refused.header("retry-after"))).isBetween(1L, 60L);
        assertThat(http.action(replay, admin()).status())
                .as("another caller's limit")
                .isEqualTo(202);
        clock.advance(Duration.ofMinutes(1));
        assertThat(http.action(replay, member()).status()).isEqualTo(202);
    }

    @Test
    void anAdminsReplayJoiningAMembersWaitingOneFiresEveryProjectsTriggers() {
        Hook hook = sharedByBothProjects();
        String ours = issuesTrigger(hook, mine).json().path("id").asText();
        String others = issuesTrigger(hook, theirs).json().path("id").asText();
        String deliveryId = sampleDispatched(hook);
        waitingReplay(hook, deliveryId, new Audience.Projects(Set.of(mine)));

        HttpReply byAdmin = http.action(deliveries(hook) + "/" + deliveryId + "/replay", admin());

        assertThat(byAdmin.status()).as(byAdmin.body()).isEqualTo(202);
        assertThat(firedInRound(hook, deliveryId, 1)).containsExactlyInAnyOrder(ours, others);
    }

    @Test
    void aMembersReplayJoiningAnotherProjectsWaitingOneAddsItsOwnProjectsTriggers() {
        Hook hook = sharedByBothProjects();
        String ours = issuesTrigger(hook, mine).json().path("id").asText();
        String others = issuesTrigger(hook, theirs).json().path("id").asText();
        String deliveryId = sampleDispatched(hook);
        waitingReplay(hook, deliveryId, new Audience.Projects(Set.of(theirs)));

        HttpReply byMember = http.action(deliveries(hook) + "/" + deliveryId + "/replay", member());

        assertThat(byMember.status()).as(byMember.body()).isEqualTo(202);
        assertThat(firedInRound(hook, deliveryId, 1)).containsExactlyInAnyOrder(ours, others);
    }

    @Test
    void aMembersReplayJoiningAnAdminsWaitingOneFiresEachTriggerOnce() {
        Hook hook = sharedByBothProjects();
        String ours = issuesTrigger(hook, mine).json().path("id").asText();
        String others = issuesTrigger(hook, theirs).json().path("id").asText();
        String deliveryId = sampleDispatched(hook);
        waitingReplay(hook, deliveryId, Audience.everyone());

        HttpReply byMember = http.action(deliveries(hook) + "/" + deliveryId + "/replay", member());

        assertThat(byMember.status()).as(byMember.body()).isEqualTo(202);
        assertThat(firedInRound(hook, deliveryId, 1)).containsExactlyInAnyOrder(ours, others);
        assertThat(detail(hook, deliveryId).path("dispatch").path("rounds").asInt())
                .isEqualTo(2);
    }

    @Test
    void aMembersReplayAfterAJoinedRoundFiresOnlyItsOwnProjectsTriggers() {
        Hook hook = sharedByBothProjects();
        String ours = issuesTrigger(hook, mine).json().path("id").asText();
        issuesTrigger(hook, theirs);
        String deliveryId = sampleDispatched(hook);
        waitingReplay(hook, deliveryId, new Audience.Projects(Set.of(mine)));
        http.action(deliveries(hook) + "/" + deliveryId + "/replay", admin());
        firedInRound(hook, deliveryId, 1);

        HttpReply byMember = http.action(deliveries(hook) + "/" + deliveryId + "/replay", member());

        assertThat(byMember.status()).as(byMember.body()).isEqualTo(202);
        assertThat(firedInRound(hook, deliveryId, 2)).containsExactly(ours);
    }

    @Test
    void aRoundAReplayJoinedAfterItWasReadStaysWaitingForTheTriggersItAdded() {
        Hook hook = sharedByBothProjects();
        issuesTrigger(hook, mine);
        issuesTrigger(hook, theirs);
        String deliveryId = sampleDispatched(hook);
        try (Database database = openDatabase()) {
            var store = new DeliveryStore(database);
            DeliveryStore.Due byMember = store.replay(
                            hook.connectionId(), deliveryId, new Audience.Projects(Set.of(mine)))
                    .orElseThrow();
            store.replay(hook.connectionId(), deliveryId, Audience.everyone());

            // what a dispatch that read the member's round before the admin joined it marks
            store.dispatched(List.of(byMember), clock.instant());
        }

        JsonNode dispatch = detail(hook, deliveryId).path("dispatch");
        assertThat(dispatch.path("status").asText()).isEqualTo("waiting");
        assertThat(dispatch.path("rounds").asInt()).isEqualTo(1);
    }

    /**
     * What a replay for {@code audience} leaves until the server's dispatcher takes its round: the round waits (the
     * sweep takes a round only once its delivery is 30 s old on the test's clock, which these tests do not move).
     */
    private void waitingReplay(Hook hook, String deliveryId, Audience audience) {
        try (Database database = openDatabase()) {
            assertThat(new DeliveryStore(database).replay(hook.connectionId(), deliveryId, audience))
                    .isPresent();
        }
        assertThat(detail(hook, deliveryId).path("dispatch").path("status").asText())
                .isEqualTo("waiting");
    }

    /** The triggers a delivery's round fired, once the round is dispatched. */
    private List<String> firedInRound(Hook hook, String deliveryId, int round) {
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        detail(hook, deliveryId).path("dispatch").path("rounds").asInt() > round);
        return firedIn(hook, deliveryId, round);
    }

    /** A GitHub connection an admin shares with both projects. */
    private Hook sharedByBothProjects() {
        String secret = "secret-" + UUID.randomUUID();
        HttpReply created = http.post(
                CONNECTIONS,
                "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"" + secret
                        + "\"}, \"project_ids\": [\"" + mine + "\", \"" + theirs + "\"]}",
                admin());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return new Hook(
                created.json().path("id").asText(),
                "github",
                URI.create(created.json().path("webhook_url").asText()).getPath(),
                secret);
    }

    /** The triggers a delivery's round fired, as an admin's view of the log shows them. */
    private List<String> firedIn(Hook hook, String deliveryId, int round) {
        var fired = new ArrayList<String>();
        detail(hook, deliveryId).path("firings").forEach(firing -> {
            if (firing.path("round").asInt() == round) {
                fired.add(firing.path("trigger_id").asText());
            }
        });
        return fired;
    }

    @Test
    void aMemberIsKeptOutOfOtherProjectsDeliveries() {
        Provider github = providers().toList().getFirst();
        Hook ours = connect(github, mine);
        Hook others = connect(github, theirs);
        String body = sampleOf("github").path("sample_event").toString();
        String delivered = deliver(others, body, now(), Map.of())
                .json()
                .path("delivery_id")
                .asText();
        deliver(ours, body, now(), Map.of());

        assertThat(http.get(deliveries(ours), member()).ids()).hasSize(1);
        http.get(deliveries(others), member()).assertError(403, "project_forbidden", "connection_id");
        http.get(deliveries(others) + "/" + delivered, member()).assertError(403, "project_forbidden", "connection_id");
        http.action(deliveries(others) + "/" + delivered + "/replay", member())
                .assertError(403, "project_forbidden", "connection_id");
        // another connection's delivery is not found through one's own
        http.get(deliveries(ours) + "/" + delivered, member()).assertError(404, "delivery_not_found", "delivery_id");
        http.get(CONNECTIONS + "/esc_none/deliveries", member())
                .assertError(404, "event_connection_not_found", "connection_id");
    }

    @Test
    void deletingTheConnectionRemovesItsDeliveries() {
        Hook hook = connect(providers().toList().getFirst(), mine);
        String body = sampleOf("github").path("sample_event").toString();
        dispatched(
                hook,
                deliver(hook, body, now(), Map.of()).json().path("delivery_id").asText());

        HttpReply deleted = http.delete(CONNECTIONS + "/" + hook.connectionId(), admin());

        assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        assertThat(deleted.json().path("subscriptions_removed").asInt()).isZero();
        deliver(hook, body, now(), Map.of()).assertError(404, "hook_not_found", null);
        http.get(deliveries(hook), admin()).assertError(404, "event_connection_not_found", "connection_id");
    }

    /** A connection's webhook: its id, the path of its URL and its signing secret. */
    record Hook(String connectionId, String provider, String path, String secret) {
        Hook withSecret(String other) {
            return new Hook(connectionId, provider, path, other);
        }
    }

    /** A trigger in {@code project} on the hook's {@code issues.opened}, starting a run that notes the event. */
    private HttpReply issuesTrigger(Hook hook, String project) {
        HttpReply pipeline = http.post("/pipelines", """
                {"name": "on issues %s", "steps": [{"id": "note", "action": "set_output",
                  "params": {"key": "seen", "value": "{{ event.type }}: {{ event.payload.issue.title }}"}}]}""".formatted(UUID.randomUUID()), admin());
        assertThat(pipeline.status()).as(pipeline.body()).isEqualTo(201);
        HttpReply trigger = http.post(
                "/triggers",
                "{\"name\": \"on issues\", \"project_id\": \"" + project + "\", \"connection_id\": \""
                        + hook.connectionId() + "\", \"event_types\": [\"issues.opened\"], \"target\": "
                        + "{\"pipeline_id\": \"" + pipeline.json().path("id").asText() + "\"}}",
                admin());
        assertThat(trigger.status()).as(trigger.body()).isEqualTo(201);
        return trigger;
    }

    private Hook connect(Provider provider, String project) {
        String secret = "secret-" + UUID.randomUUID();
        return connectWith(provider.name(), provider.credentials().formatted(secret), secret, project);
    }

    private Hook connectWith(String provider, String credentials, String secret, String project) {
        HttpReply created = http.post(
                CONNECTIONS,
                "{\"provider\": \"" + provider + "\", \"credentials\": " + credentials + ", \"project_ids\": [\""
                        + project + "\"]}",
                admin());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode json = created.json();
        return new Hook(
                json.path("id").asText(),
                provider,
                URI.create(json.path("webhook_url").asText()).getPath(),
                json.has("signing_secret") ? json.path("signing_secret").asText() : secret);
    }

    /** Sends a delivery signed as the provider signs it, with its first sample's headers and a fresh id. */
    private HttpReply deliver(Hook hook, String body, long timestamp, Map<String, String> extra) {
        var headers = new LinkedHashMap<>(sign(hook, body, timestamp, "msg_" + UUID.randomUUID()));
        Provider provider = providers()
                .filter(p -> p.name().equals(hook.provider()))
                .findFirst()
                .orElseThrow();
        if (!provider.idHeader().isEmpty()) {
            headers.put(provider.idHeader(), UUID.randomUUID().toString());
        }
        headers.putAll(extra);
        return post(hook, body, headers, provider);
    }

    /** Posts a body with the headers given and the provider's sample headers (its event type). */
    private HttpReply post(Hook hook, String body, Map<String, String> headers, Provider provider) {
        var all = new LinkedHashMap<String, String>();
        all.put("Content-Type", "application/json");
        if (provider != null) {
            sampleOf(provider.name())
                    .path("sample_headers")
                    .properties()
                    .forEach(h -> all.put(h.getKey(), h.getValue().asText()));
        }
        all.putAll(headers);
        var pairs = new ArrayList<String>();
        all.forEach((name, value) -> {
            pairs.add(name);
            pairs.add(value);
        });
        return http.post(hook.path(), body, pairs.toArray(String[]::new));
    }

    private static Map<String, String> sign(Hook hook, String body, long timestamp, String id) {
        ArrayNode cases = Json.mapper().createArrayNode();
        ObjectNode c = cases.addObject();
        c.put("provider", hook.provider());
        c.put("secret", hook.secret());
        c.put("body", body);
        c.put("timestamp", timestamp);
        c.put("id", id);
        c.put("url", "http://localhost" + hook.path());
        c.set("params", Json.object());
        var headers = new HashMap<String, String>();
        WebhookSigner.sign(cases)
                .path(0)
                .properties()
                .forEach(h -> headers.put(h.getKey(), h.getValue().asText()));
        return headers;
    }

    private JsonNode sampleOf(String provider) {
        return http.get("/events/descriptors?provider=" + provider, admin())
                .json()
                .path("data")
                .path(0)
                .path("event_types")
                .path(0);
    }

    /** The id of GitHub's sample event delivered to {@code hook}, once its first round is dispatched. */
    private String sampleDispatched(Hook hook) {
        String deliveryId = deliver(
                        hook, sampleOf("github").path("sample_event").toString(), now(), Map.of())
                .json()
                .path("delivery_id")
                .asText();
        dispatched(hook, deliveryId);
        return deliveryId;
    }

    /** The delivery once its first round is dispatched. */
    private JsonNode dispatched(Hook hook, String deliveryId) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> detail(hook, deliveryId)
                        .path("dispatch")
                        .path("status")
                        .asText()
                        .equals("dispatched"));
        return detail(hook, deliveryId);
    }

    private JsonNode detail(Hook hook, String deliveryId) {
        HttpReply reply = http.get(deliveries(hook) + "/" + deliveryId, admin());
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    private static String deliveries(Hook hook) {
        return CONNECTIONS + "/" + hook.connectionId() + "/deliveries";
    }

    private long now() {
        return clock.instant().getEpochSecond();
    }

    private String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN_SECRET};
    }

    private String[] member() {
        return new String[] {"Authorization", "Bearer " + memberSecret};
    }
}
