package dev.arbor.platform.outbound;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The one HTTP client for calls this server makes on behalf of users (HTTP request actions, custom MCP URLs,
 * webhook deliveries, model downloads). Every URL, and every redirect it leads to, passes the {@link OutboundPolicy}
 * first.
 */
public final class OutboundClient {
    static final int MAX_REDIRECTS = 5;
    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);
    /** The headers a redirect to another origin keeps: they describe the request and carry no credential. */
    private static final Set<String> CROSS_ORIGIN_HEADERS =
            Set.of("accept", "accept-language", "content-type", "content-language", "user-agent");

    private final OutboundPolicy policy;
    private final HttpClient client;

    public OutboundClient(OutboundPolicy policy) {
        this.policy = requireNonNull(policy, "policy");
        this.client = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> body)
            throws IOException, InterruptedException {
        HttpRequest current = request;
        for (int hop = 0; ; hop++) {
            policy.check(current.uri());
            HttpResponse<T> response = client.send(current, body);
            Optional<String> location = response.headers().firstValue("location");
            if (!REDIRECTS.contains(response.statusCode()) || location.isEmpty()) {
                return response;
            }
            discard(response.body());
            if (hop == MAX_REDIRECTS) {
                throw new IOException("more than " + MAX_REDIRECTS + " redirects from " + request.uri());
            }
            current = redirected(current, response.statusCode(), current.uri().resolve(location.get()));
        }
    }

    private static HttpRequest redirected(HttpRequest previous, int status, URI target) {
        boolean keepsMethod = status == 307
                || status == 308
                || previous.method().equals("GET")
                || previous.method().equals("HEAD");
        var builder = HttpRequest.newBuilder(target);
        previous.timeout().ifPresent(builder::timeout);
        boolean sameOrigin = sameOrigin(previous.uri(), target);
        previous.headers().map().forEach((name, values) -> {
            // what was meant for one origin never follows a redirect to another, whatever a header is called
            // (Authorization, Cookie, X-Api-Key, X-Whatever-Token): only headers that carry no credential do
            if (sameOrigin || CROSS_ORIGIN_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> builder.header(name, value));
            }
        });
        if (keepsMethod) {
            builder.method(previous.method(), previous.bodyPublisher().orElse(HttpRequest.BodyPublishers.noBody()));
        } else {
            builder.GET();
        }
        return builder.build();
    }

    private static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme())
                && a.getHost().equalsIgnoreCase(b.getHost())
                && a.getPort() == b.getPort();
    }

    private static void discard(Object body) throws IOException {
        if (body instanceof Closeable closeable) {
            closeable.close();
        }
    }
}
