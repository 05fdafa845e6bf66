package dev.arbor.studio.running;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * Where a decision came from.
 *
 * @param surface {@code api} (the studio API), {@code wire} (the single-request format) or {@code rerun}
 * @param endpoint the path it was posted to
 * @param attribution how the template was named: {@code explicit} ({@code template} field) or {@code header}
 *     ({@code X-Studio-Template} on the wire format)
 */
public record Source(String surface, String endpoint, String requestId, String attribution, Optional<String> rerunOf) {
    public Source {
        requireNonNull(surface, "surface");
        requireNonNull(endpoint, "endpoint");
        requireNonNull(requestId, "requestId");
        requireNonNull(attribution, "attribution");
        requireNonNull(rerunOf, "rerunOf");
    }

    /**
     * Another part of the server asking ({@code router}, {@code eval}): its surface names it, also as the endpoint,
     * and the template is named explicitly.
     */
    public static Source inProcess(String surface, String requestId) {
        return new Source(surface, surface, requestId, "explicit", Optional.empty());
    }
}
