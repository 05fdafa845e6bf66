package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * {@code ?wait=N} on a read of long work (a decision, an eval, a fit): the read answers once the work has finished or
 * N seconds (0 to 60, a fraction rounded up) have passed, whichever comes first.
 */
public final class Waiting {
    public static final int MAX_SECONDS = 60;
    private static final long POLL_MILLIS = 100;

    private final QueryParam param;

    private Waiting(QueryParam param) {
        this.param = param;
    }

    /** The parameter for waiting on {@code work} ("the eval", "a background decision"), as the OpenAPI shows it. */
    public static Waiting on(String work) {
        requireNonNull(work, "work");
        return new Waiting(new QueryParam(
                "wait",
                Schema.number(),
                "Seconds (0 to " + MAX_SECONDS + ") to wait for " + work + " to finish before answering."));
    }

    public QueryParam param() {
        return param;
    }

    /** Reads the work until {@code finished} says so or the wait sent is over; answers its last reading. */
    public <T> T read(Context ctx, Supplier<T> reading, Predicate<T> finished) {
        long deadline = System.nanoTime() + seconds(ctx) * 1_000_000_000L;
        T now = reading.get();
        while (!finished.test(now) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            now = reading.get();
        }
        return now;
    }

    private int seconds(Context ctx) {
        Optional<String> sent = param.read(ctx);
        try {
            double seconds = sent.map(Double::parseDouble).orElse(0.0);
            if (!(seconds >= 0 && seconds <= MAX_SECONDS)) {
                throw new NumberFormatException();
            }
            return (int) Math.ceil(seconds);
        } catch (NumberFormatException e) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    "wait",
                    "`wait` is a number of seconds from 0 to " + MAX_SECONDS + ", not '" + sent.orElse("") + "'.");
        }
    }
}
