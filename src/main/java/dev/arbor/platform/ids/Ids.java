package dev.arbor.platform.ids;

import static java.util.Objects.requireNonNull;

import com.github.f4b6a3.ulid.UlidCreator;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/** Server-made ids: {@code <prefix>_<ULID>}, time-sortable; request ids {@code req_<32 hex>}. */
public final class Ids {
    private static final SecureRandom RANDOM = new SecureRandom();

    private static final ScopedValue<Consumer<String>> MINTED = ScopedValue.newInstance();

    private Ids() {}

    public static String next(String prefix) {
        String id = nextUnnoted(prefix);
        if (MINTED.isBound()) {
            MINTED.get().accept(id);
        }
        return id;
    }

    /**
     * An id like {@link #next}'s that is not told to {@link #noting}: for bookkeeping about a request (its audit row),
     * not something the request made.
     */
    public static String nextUnnoted(String prefix) {
        return prefix + "_" + UlidCreator.getMonotonicUlid();
    }

    /**
     * Runs {@code work}, telling {@code minted} each id it makes with {@link #next} on this thread: how a request's
     * answer can be found again from what it created (an idempotency key whose server died before answering). Inside
     * another such call, both are told.
     */
    public static <R, X extends Throwable> R noting(Consumer<String> minted, ScopedValue.CallableOp<R, X> work)
            throws X {
        requireNonNull(minted, "minted");
        Consumer<String> both = MINTED.isBound() ? minted.andThen(MINTED.get()) : minted;
        return ScopedValue.where(MINTED, both).call(work);
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
