package dev.arbor.platform.webhooks;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.ids.Ids;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The Standard Webhooks signature (standardwebhooks.com, Svix's scheme): HMAC-SHA256 with the secret's base64 key over
 * {@code <message id>.<unix seconds>.<body>}, sent as {@code webhook-signature: v1,<base64>}. One place for both
 * sides: what Arbor verifies (providers, pipelines' webhooks) and what it signs (triggers' deliveries to URLs).
 */
public final class StandardWebhookSignature {
    /** How a secret is written: the prefix, then the key in base64. */
    public static final String SECRET_PREFIX = "whsec_";

    private static final String VERSION = "v1,";

    private StandardWebhookSignature() {}

    /** A new secret of 256 random bits. */
    public static String newSecret() {
        return SECRET_PREFIX + Base64.getEncoder().encodeToString(Ids.randomBytes(32));
    }

    /**
     * The HMAC key a secret holds (the {@code whsec_} prefix is optional, as the standard's libraries accept); empty
     * when the rest is not base64, since such a secret can sign nothing.
     */
    public static Optional<byte[]> key(String secret) {
        String text = secret.startsWith(SECRET_PREFIX) ? secret.substring(SECRET_PREFIX.length()) : secret;
        try {
            byte[] key = Base64.getDecoder().decode(text);
            return key.length == 0 ? Optional.empty() : Optional.of(key);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The raw signature of one message: what a {@code v1,} entry of the header holds, decoded. */
    public static byte[] signature(byte[] key, String messageId, String timestamp, byte[] body) {
        requireNonNull(messageId, "messageId");
        requireNonNull(timestamp, "timestamp");
        byte[] prefix = (messageId + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(prefix);
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    /**
     * The {@code webhook-signature} header's value for a message signed with {@code secret}.
     *
     * @throws IllegalArgumentException when the secret holds no base64 key
     */
    public static String header(String secret, String messageId, long unixSeconds, byte[] body) {
        byte[] key = key(secret).orElseThrow(() -> new IllegalArgumentException("the secret holds no base64 key"));
        return VERSION
                + Base64.getEncoder().encodeToString(signature(key, messageId, Long.toString(unixSeconds), body));
    }

    /** The signatures a header's space-separated entries hold, decoded; entries of other versions are skipped. */
    public static List<byte[]> candidates(String header) {
        var candidates = new ArrayList<byte[]>();
        for (String entry : header.strip().split(" ")) {
            if (entry.startsWith(VERSION)) {
                try {
                    candidates.add(Base64.getDecoder().decode(entry.substring(VERSION.length())));
                } catch (IllegalArgumentException e) {
                    // an entry that is not base64 matches nothing; the others may still
                }
            }
        }
        return List.copyOf(candidates);
    }
}
