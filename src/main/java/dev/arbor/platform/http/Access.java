package dev.arbor.platform.http;

import java.util.Set;

/**
 * Who may call a path: the guards decide from this, and the OpenAPI document states it from the same answer, so the
 * two cannot disagree.
 */
public enum Access {
    /**
     * Anyone: {@code /health}, {@code /metrics}, the OpenAPI document and its browsable page; and the webhook URLs
     * ({@code /events/hooks/{token}}), whose token and the provider's signature authenticate a delivery.
     */
    PUBLIC,
    /** The studio ({@code /v1/studio}, {@code /v1/decide}): {@code STUDIO_API_KEY} as a bearer token when set. */
    STUDIO,
    /** The admin API: an admin or member bearer token. */
    ADMIN;

    private static final Set<String> PUBLIC_PATHS = Set.of("/health", "/metrics", "/openapi.json", "/docs");
    /** Paths whose rest is a credential: a webhook URL's token. */
    private static final String HOOKS = "/events/hooks/";

    public static Access of(String path) {
        if (PUBLIC_PATHS.contains(path) || path.startsWith("/docs/") || path.startsWith(HOOKS)) {
            return PUBLIC;
        }
        if (path.equals("/v1/studio") || path.startsWith("/v1/studio/") || path.equals("/v1/decide")) {
            return STUDIO;
        }
        return ADMIN;
    }

    /** The path as a log line may show it: a webhook URL's token, which authenticates its deliveries, masked. */
    public static String loggable(String path) {
        return path.startsWith(HOOKS) && path.length() > HOOKS.length() ? HOOKS + "***" : path;
    }
}
