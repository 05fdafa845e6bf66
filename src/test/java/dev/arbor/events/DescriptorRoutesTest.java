package dev.arbor.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.OpenApiConformance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code GET /events/descriptors} on a real server: the list, its provider filter, and answers as documented. */
class DescriptorRoutesTest {
    private static final String ADMIN_TOKEN = "arb_events_test_admin";
    private static ArborServer server;
    private static OpenApiConformance api;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", ADMIN_TOKEN));
        api = new OpenApiConformance(server.http(), "Authorization", "Bearer " + ADMIN_TOKEN);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void theListHoldsEveryProviderWithItsEventTypesAndSamples() {
        JsonNode list = api.get("/events/descriptors").json();

        assertThat(list.path("object").asText()).isEqualTo("list");
        assertThat(list.path("has_more").asBoolean()).isFalse();
        assertThat(list.path("data").findValuesAsText("provider"))
                .hasSizeGreaterThanOrEqualTo(20)
                .contains("github", "stripe", "slack", "pagerduty", "standard_webhooks");
        JsonNode stripe = descriptor(list, "stripe");
        assertThat(stripe.path("object").asText()).isEqualTo("event.descriptor");
        assertThat(stripe.path("provider_type").asText()).isEqualTo("payments");
        assertThat(stripe.path("event_types").findValuesAsText("type")).contains("invoice.paid");
        assertThat(stripe.at("/event_types/0/sample_event/type").asText()).isEqualTo("invoice.paid");
        assertThat(stripe.path("grouping_suggestions").findValuesAsText("path")).contains("$.data.object.customer");
        assertThat(stripe.has("delivery"))
                .as("the delivery rules are the server's own")
                .isFalse();
    }

    @Test
    void secretCredentialFieldsAreFlaggedSecret() {
        JsonNode slack =
                descriptor(api.get("/events/descriptors?provider=slack").json(), "slack");
        var secret = new ArrayList<String>();
        slack.path("credentials").forEach(field -> {
            if (field.path("secret").asBoolean()) {
                secret.add(field.path("key").asText());
            }
        });

        assertThat(secret).containsExactlyInAnyOrder("bot_token", "signing_secret");
        JsonNode teams =
                descriptor(api.get("/events/descriptors?provider=teams").json(), "teams");
        assertThat(teams.at("/credentials/0/key").asText()).isEqualTo("tenant_id");
        assertThat(teams.at("/credentials/0/secret").asBoolean()).isFalse();
    }

    @Test
    void theProviderFilterGivesThatProviderAlone() {
        JsonNode list = api.get("/events/descriptors?provider=github").json();

        assertThat(list.path("data").findValuesAsText("provider")).containsExactly("github");
        assertThat(list.path("first_id").asText()).isEqualTo("github");
    }

    @ParameterizedTest
    @ValueSource(strings = {"gitbub", "GitHub", "%20"})
    void anUnknownProviderIsABadParameterListingTheKnownOnes(String provider) {
        JsonNode error =
                api.get("/events/descriptors?provider=" + provider).assertError(400, "invalid_parameter", "provider");

        assertThat(error.path("message").asText()).contains("github", "stripe");
    }

    @Test
    void aMemberTokenMayReadTheCatalog() {
        String project = api.post("/projects", "{\"name\": \"events\"}")
                .json()
                .path("id")
                .asText();
        String member = api.post(
                        "/auth/tokens",
                        "{\"name\": \"dev\", \"role\": \"member\", \"projects\": [\"" + project + "\"]}")
                .json()
                .path("token")
                .asText();

        assertThat(server.http()
                        .get("/events/descriptors", "Authorization", "Bearer " + member)
                        .status())
                .isEqualTo(200);
        assertThat(server.http().get("/events/descriptors").status()).isEqualTo(401);
    }

    private static JsonNode descriptor(JsonNode list, String provider) {
        List<JsonNode> found = new ArrayList<>();
        list.path("data").forEach(d -> {
            if (d.path("provider").asText().equals(provider)) {
                found.add(d);
            }
        });
        assertThat(found).hasSize(1);
        return found.getFirst();
    }
}
