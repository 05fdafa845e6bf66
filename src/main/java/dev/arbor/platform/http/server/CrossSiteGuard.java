package dev.arbor.platform.http.server;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Requests;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Keeps web pages of other sites from changing anything, and keeps browser writes to JSON. Non-browser clients (no
 * {@code Origin}, no {@code Sec-Fetch-*}) pass with any content type, so that {@code curl -d} works.
 *
 * <p>On a server bound to loopback, the {@code Host} must be a loopback name too: a page that rebinds its own DNS
 * name to 127.0.0.1 is then still refused.
 */
final class CrossSiteGuard {
    private static final Set<String> LOOPBACK_NAMES = Set.of("127.0.0.1", "localhost", "[::1]", "::1");
    private static final String ALLOWED_HEADERS = "authorization, content-type, idempotency-key, if-match, "
            + "x-request-id, x-studio-client, x-studio-store, x-studio-template, x-project-id";
    private static final String EXPOSED_HEADERS =
            "x-request-id, etag, location, retry-after, x-studio-warning, " + "idempotent-replayed";

    private final Set<String> listedOrigins;
    private final boolean loopbackOnly;

    CrossSiteGuard(List<String> corsOrigins, String boundHost) {
        this.listedOrigins = new HashSet<>();
        corsOrigins.forEach(origin -> listedOrigins.add(normalize(origin)));
        this.loopbackOnly = LOOPBACK_NAMES.contains(boundHost.toLowerCase(Locale.ROOT));
    }

    /**
     * Returns true when the request was a CORS preflight and has been answered.
     *
     * @param upload whether the route takes a file, which a page of this site (or a listed one) may send as a form
     */
    boolean check(Context ctx, boolean upload) {
        String hostName = hostName(ctx.header("Host"));
        if (loopbackOnly && hostName != null && !LOOPBACK_NAMES.contains(hostName)) {
            throw ApiException.of(
                    ErrorCode.HOST_NOT_ALLOWED,
                    "This server listens on loopback only and does not answer for host '" + hostName + "'.");
        }
        String origin = ctx.header("Origin");
        String normalized = origin == null ? null : normalize(origin);
        boolean listed = normalized != null && listedOrigins.contains(normalized);
        if (listed) {
            ctx.header("access-control-allow-origin", normalized);
            ctx.header("access-control-expose-headers", EXPOSED_HEADERS);
            ctx.header("vary", "Origin");
        }
        if (ctx.method().equals(HandlerType.OPTIONS) && ctx.header("Access-Control-Request-Method") != null) {
            if (!listed) {
                throw crossSite("Origin " + origin + " is not allowed; list it in STUDIO_CORS_ORIGINS.");
            }
            ctx.header("access-control-allow-methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS");
            ctx.header("access-control-allow-headers", ALLOWED_HEADERS);
            ctx.header("access-control-max-age", "600");
            ctx.status(204);
            return true;
        }
        if (!Requests.isWrite(ctx.method())) {
            return false;
        }
        if (normalized != null) {
            if (normalized.equals("null")
                    || !(listed || ownOrigins(ctx.header("Host")).contains(normalized))) {
                throw crossSite("A page on " + origin + " may not change this server; "
                        + "list the site in STUDIO_CORS_ORIGINS to allow it.");
            }
        } else {
            String site = ctx.header("Sec-Fetch-Site");
            if (site != null && (site.equalsIgnoreCase("cross-site") || site.equalsIgnoreCase("same-site"))) {
                throw crossSite("A page on another site may not change this server.");
            }
        }
        if (!upload && isBrowser(ctx) && hasBody(ctx) && !isJson(ctx.header("Content-Type"))) {
            throw ApiException.of(
                    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
                    "Send JSON from a browser (Content-Type: application/json), not "
                            + (ctx.header("Content-Type") == null ? "no content type" : ctx.header("Content-Type"))
                            + ".");
        }
        return false;
    }

    private static ApiException crossSite(String message) {
        return ApiException.of(ErrorCode.CROSS_SITE_REQUEST, message);
    }

    private static boolean isBrowser(Context ctx) {
        if (ctx.header("Origin") != null) {
            return true;
        }
        for (String name : ctx.headerMap().keySet()) {
            if (name.toLowerCase(Locale.ROOT).startsWith("sec-fetch-")) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasBody(Context ctx) {
        String length = ctx.header("Content-Length");
        return (length != null && !length.trim().equals("0")) || ctx.header("Transfer-Encoding") != null;
    }

    private static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        String base = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        return base.equals("application/json") || base.equals("application/merge-patch+json");
    }

    private static Set<String> ownOrigins(String host) {
        if (host == null) {
            return Set.of();
        }
        String name = hostName(host);
        String port =
                host.substring(host.lastIndexOf(']') + 1).contains(":") ? host.substring(host.lastIndexOf(':')) : "";
        var origins = new HashSet<String>();
        var names = LOOPBACK_NAMES.contains(name) ? List.of("127.0.0.1", "localhost", "[::1]") : List.of(name);
        for (String scheme : List.of("http://", "https://")) {
            for (String each : names) {
                origins.add(scheme + each + port);
            }
        }
        return origins;
    }

    /** The host name of a Host header, port removed; IPv6 keeps its brackets. */
    private static @Nullable String hostName(@Nullable String host) {
        if (host == null) {
            return null;
        }
        String value = host.trim().toLowerCase(Locale.ROOT);
        if (value.startsWith("[")) {
            int end = value.indexOf(']');
            return end < 0 ? value : value.substring(0, end + 1);
        }
        int colon = value.indexOf(':');
        return colon < 0 ? value : value.substring(0, colon);
    }

    private static String normalize(String origin) {
        String value = origin.trim().toLowerCase(Locale.ROOT);
        return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    }
}
