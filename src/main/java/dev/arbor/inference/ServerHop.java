package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What marks a request one server passes to another (the one that runs a local deployment's replicas), in the
 * {@value #HEADER} header: the sending server, when, and an HMAC of both and the deployment under a key every server
 * derives from the sealed key. A request that carries a valid mark was checked by the first server and its rate
 * limit taken there, and is never passed on again (no loops between servers whose views differ for a moment).
 */
public final class ServerHop {
    /** The header a passed request carries. */
    public static final String HEADER = "x-arbor-hop";

    /** How long a mark is accepted: a request is passed at once, and servers' clocks may differ a little. */
    private static final Duration VALID_FOR = Duration.ofMinutes(1);

    private final SecretKeySpec key;
    private final String serverId;
    private final Clock clock;

    /**
     * @param key derived from the sealed key for this purpose alone: the same on every server of one database
     * @param serverId the sending server, named in its marks
     */
    public ServerHop(byte[] key, String serverId, Clock clock) {
        this.key = new SecretKeySpec(requireNonNull(key, "key").clone(), "HmacSHA256");
        this.serverId = requireNonNull(serverId, "serverId");
        this.clock = requireNonNull(clock, "clock");
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
}
