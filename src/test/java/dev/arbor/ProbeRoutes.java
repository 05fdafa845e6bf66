package dev.arbor;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Routes that exercise the platform apart from any feature: a studio write (not a decision) that echoes
 * its JSON body, one that fails with an extra field, and admin writes that count their runs or
 * wait for a signal.
 */
final class ProbeRoutes implements Consumer<Routes> {
    final AtomicInteger runs = new AtomicInteger();
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch entered = new CountDownLatch(1);

    @Override
    public void accept(Routes routes) {
        routes.group("probe")
                .post(
                        "/v1/studio/probe/echo",
                        "probe: a studio write echoing its body",
                        ctx -> Responses.ok(ctx, Requests.jsonObject(ctx)))
                .post("/v1/studio/conflict", "probe: a conflict with an extra field", ctx -> {
                    throw ApiException.of(
                                    ErrorCode.VERSION_CONFLICT,
                                    "base_version",
                                    "Version 2 is older than the latest, 3.")
                            .withField("current_version", 3);
                })
                .post("/probe/count", "probe: counts its runs; fails when asked", ctx -> {
                    var body = Requests.jsonObject(ctx);
                    if (body.path("fail").asBoolean()) {
                        throw ApiException.of(ErrorCode.INVALID_FIELD, "fail", "Asked to fail.");
                    }
                    Responses.ok(ctx, Map.of("run", runs.incrementAndGet()));
                })
                .post("/probe/slow", "probe: waits until released", ctx -> {
                    Requests.jsonObject(ctx);
                    entered.countDown();
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                    Responses.ok(ctx, Map.of("run", runs.incrementAndGet()));
                })
                .get("/probe/overflow", "probe: a JVM error", ctx -> {
                    throw new StackOverflowError("deep");
                })
                .get("/probe/boom", "probe: an unexpected failure", ctx -> {
                    throw new IllegalStateException("secret-looking detail that must not leak");
                });
    }
}
