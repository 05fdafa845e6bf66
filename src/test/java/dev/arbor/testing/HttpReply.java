package dev.arbor.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;

/** A response as a test sees it. */
public record HttpReply(int status, HttpHeaders headers, String body) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public JsonNode json() {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new AssertionError("not JSON (" + status + "): " + body, e);
        }
    }

    /** Asserts a 200 and returns the ids of the listed page's {@code data}, in order. */
    public List<String> ids() {
        assertThat(status).as(body).isEqualTo(200);
        var ids = new ArrayList<String>();
        json().path("data").forEach(item -> ids.add(item.path("id").asText()));
        return ids;
    }

    public String header(String name) {
        return headers.firstValue(name).orElse(null);
    }

    /** Asserts the error envelope of contract 7.1 with this status, code and param, and returns the error. */
    public JsonNode assertError(int expectedStatus, String code, String param) {
        assertThat(status).as("status of %s", body).isEqualTo(expectedStatus);
        JsonNode error = json().path("error");
        assertThat(error.path("code").asText()).as("code in %s", body).isEqualTo(code);
        if (param == null) {
            assertThat(error.get("param").isNull()).as("param in %s", body).isTrue();
        } else {
            assertThat(error.path("param").asText()).as("param in %s", body).isEqualTo(param);
        }
        assertThat(error.path("type").asText()).isNotBlank();
        assertThat(error.path("message").asText()).isNotBlank();
        assertThat(error.has("decision_id")).isTrue();
        JsonNode first = error.path("details").path(0);
        assertThat(first.path("code").asText()).isEqualTo(code);
        assertThat(first.path("message").asText())
                .isEqualTo(error.path("message").asText());
        String requestId = error.path("request_id").asText();
        assertThat(requestId).isNotBlank().isEqualTo(header("x-request-id"));
        return error;
    }
}
