package dev.arbor.platform.ids;

import com.github.f4b6a3.ulid.UlidCreator;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/** Server-made ids: {@code <prefix>_<ULID>}, time-sortable; request ids {@code req_<32 hex>}. */
public final class Ids {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {}

    public static String next(String prefix) {
        return prefix + "_" + UlidCreator.getMonotonicUlid();
    }

    /** Request ids only need to be unique, not secret, so they skip the cost of a secure generator. */
    public static String requestId() {
        var random = ThreadLocalRandom.current();
        HexFormat hex = HexFormat.of();
        return "req_" + hex.toHexDigits(random.nextLong()) + hex.toHexDigits(random.nextLong());
    }

    /** Random bytes for secrets and tokens. */
    public static byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
