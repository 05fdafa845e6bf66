package dev.arbor.platform.ids;

import com.github.f4b6a3.ulid.UlidCreator;
import java.security.SecureRandom;
import java.util.HexFormat;

/** Server-made ids: {@code <prefix>_<ULID>}, time-sortable; request ids {@code req_<32 hex>}. */
public final class Ids {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {}

    public static String next(String prefix) {
        return prefix + "_" + UlidCreator.getMonotonicUlid();
    }

    public static String requestId() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return "req_" + HexFormat.of().formatHex(bytes);
    }

    /** Random bytes for secrets and tokens. */
    public static byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
