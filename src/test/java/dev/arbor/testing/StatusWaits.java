package dev.arbor.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

/** Waiting through the API, as a client would, until an object reports a status. */
public final class StatusWaits {
    private StatusWaits() {}

    /** Until {@code GET path} answers an object whose {@code status} is {@code status}. */
    public static void until(TestServer http, String path, String status, Duration atMost, String... headers) {
        await().atMost(atMost)
                .until(() ->
                        http.get(path, headers).json().path("status").asText().equals(status));
    }
}
