package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What marks a request one server passes to another (the one that runs a local deployment's replicas), in the
 * {@value #HEADER} header: the sending server, when, and an HMAC of both and the deployment under a key every server
 * derives from the sealed key. A request that carries a valid mark was checked by the first server and its rate
 * limit taken there, and is never passed on again (no loops between servers whose views differ for a moment).
 * Inference and {@code /v1/decide} pass their requests through the one instance; {@link Routing} closes it.
 */
public final class ServerHop implements AutoCloseable {
    /** The header a passed request carries. */
    public static final String HEADER = "x-arbor-hop";

    /** How long a mark is accepted: a request is passed at once, and servers' clocks may differ a little. */
    private static final Duration VALID_FOR = Duration.ofMinutes(1);

    private final SecretKeySpec key;
    private final String serverId;
    private final Clock clock;
    /**
     * Passes requests to the server that runs a local deployment's replicas: an address this database recorded, not
     * a caller's, so not through the outbound policy (which refuses the private addresses servers reach each other
     * at).
     */
    private final HttpClient servers = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    /**
     * @param key derived from the sealed key for this purpose alone: the same on every server of one database
     * @param serverId the sending server, named in its marks
     */
    public ServerHop(byte[] key, String serverId, Clock clock) {
        this.key = new SecretKeySpec(requireNonNull(key, "key").clone(), "HmacSHA256");
        this.serverId = requireNonNull(serverId, "serverId");
        this.clock = requireNonNull(clock, "clock");
    }

    /** Whether this request was passed here by another server for {@code deploymentId}, with a valid mark. */
    boolean passed(Context ctx, String deploymentId) {
        String mark = ctx.header(HEADER);
        return mark != null && verifies(mark, deploymentId);
    }

    /**
     * Passes a request for {@code deploymentId} to {@code target} on the server that runs its replicas, marked, with
     * {@code body} and those of the caller's {@code headers} it sent (its credentials: that server checks them again);
     * the answer as it comes, its body still to read.
     */
    HttpResponse<InputStream> pass(
            Context ctx,
            String deploymentId,
            URI target,
            byte[] body,
            String accept,
            Duration timeout,
            List<String> headers)
            throws IOException, InterruptedException {
        var builder = HttpRequest.newBuilder(requireNonNull(target, "target"))
                .timeout(requireNonNull(timeout, "timeout"))
                .header("content-type", "application/json")
                .header("accept", requireNonNull(accept, "accept"))
                .header(HEADER, mark(deploymentId));
        for (String header : headers) {
            Optional.ofNullable(ctx.header(header)).ifPresent(value -> builder.header(header, value));
        }
        HttpRequest passing = builder.POST(HttpRequest.BodyPublishers.ofByteArray(requireNonNull(body, "body")))
                .build();
        return servers.send(passing, HttpResponse.BodyHandlers.ofInputStream());
    }

    /**
     * 503 {@code deployment_on_other_server} at {@code model} with {@code retry-after}: the server that ran the
     * replicas of {@code deployment} {@code what}, and another server takes the deployment over (starting its
     * replicas) once that one is gone.
     */
    static ApiException elsewhere(String deployment, String server, String what) {
        String why = "The server that ran the replicas of deployment '" + deployment + "' (" + server + ") " + what
                + "; once it is gone another server takes the deployment over and starts them again: retry in a "
                + "moment.";
        return ApiException.of(ErrorCode.DEPLOYMENT_ON_OTHER_SERVER, "model", why)
                .withHeader("retry-after", "1");
    }

    /** The mark for passing a request for {@code deploymentId} on now. */
    String mark(String deploymentId) {
        String issued = Long.toString(clock.millis());
        return serverId + "." + issued + "." + mac(serverId, issued, requireNonNull(deploymentId, "deploymentId"));
    }

    /** Whether {@code mark} is one a server of this database made for {@code deploymentId} within the last minute. */
    boolean verifies(String mark, String deploymentId) {
        String[] parts = requireNonNull(mark, "mark").split("\\.", -1);
        if (parts.length != 3) {
            return false;
        }
        long issued;
        try {
            issued = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(clock.millis() - issued) > VALID_FOR.toMillis()) {
            return false;
        }
        byte[] expected = mac(parts[0], parts[1], requireNonNull(deploymentId, "deploymentId"))
                .getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, parts[2].getBytes(StandardCharsets.US_ASCII));
    }

    private String mac(String server, String issued, String deploymentId) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            byte[] digest =
                    mac.doFinal((server + "\n" + issued + "\n" + deploymentId).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    @Override
    public void close() {
        servers.close();
    }
}
