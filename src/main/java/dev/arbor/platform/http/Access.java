package dev.arbor.platform.http;

import java.util.Set;

/**
 * Who may call a path: the guards decide from this, and the OpenAPI document states it from the same answer, so the
 * two cannot disagree.
 */
public enum Access {
    /**
     * Anyone: {@code /health}, the OpenAPI document, the manual and the API reference ({@code /docs}); and the webhooks, where
     * the call's signature is the authentication: {@code /events/hooks/{token}} (the token names the connection) and a
     * pipeline's {@code /pipelines/{id}/webhook}; and an approval email's one-click links
     * ({@code /approval-links/{token}}, the signed token being the credential). Also the web console's page and files ({@code /console}, and
     * {@code /}, which leads there): the page asks for a token itself.
     */
    PUBLIC,
    /** The studio ({@code /v1/studio}, {@code /v1/decide}): {@code STUDIO_API_KEY} as a bearer token when set. */
    STUDIO,
    /**
     * The admin API: an admin or member bearer token. Also {@code /metrics}, which shows every project and is for
     * admins only (unless the server opens it to anyone).
     */
    ADMIN;

    private static final Set<String> PUBLIC_PATHS = Set.of("/", "/health", "/openapi.json", "/docs", "/console");
    /** Admin paths about the whole server, every project at once: members may not call them. */
    private static final Set<String> WHOLE_SERVER_PATHS = Set.of("/metrics");
    /** Paths whose rest is a credential: a webhook URL's token. */
    private static final String HOOKS = "/events/hooks/";
    /** Paths whose rest is a credential: an approval email's signed one-click link. */
    private static final String APPROVAL_LINKS = "/approval-links/";

    public static Access of(String path) {
        if (PUBLIC_PATHS.contains(path)
                || path.startsWith("/docs/")
                || path.startsWith("/console/")
                || path.startsWith(HOOKS)
                || path.startsWith(APPROVAL_LINKS)
                || pipelineWebhook(path)) {
            return PUBLIC;
        }
        if (path.equals("/v1/studio") || path.startsWith("/v1/studio/") || path.equals("/v1/decide")) {
            return STUDIO;
        }
        return ADMIN;
    }

    /** Whether only an admin, never a member, may call this admin path: it shows every project at once. */
    public static boolean wholeServer(String path) {
        return WHOLE_SERVER_PATHS.contains(path);
    }

    /** The path as a log line may show it: a webhook URL's token, which authenticates its deliveries, masked. */
    public static String loggable(String path) {
        if (path.startsWith(APPROVAL_LINKS) && path.length() > APPROVAL_LINKS.length()) {
            return APPROVAL_LINKS + "***";
        }
        return path.startsWith(HOOKS) && path.length() > HOOKS.length() ? HOOKS + "***" : path;
    }

    private static boolean pipelineWebhook(String path) {
        String[] segments = path.split("/", -1);
        return segments.length == 4
                && segments[0].isEmpty()
                && segments[1].equals("pipelines")
                && !segments[2].isEmpty()
                && segments[3].equals("webhook");
    }
}
