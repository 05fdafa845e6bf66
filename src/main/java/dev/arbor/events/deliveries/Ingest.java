package dev.arbor.events.deliveries;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.EventConnections;
import dev.arbor.events.EventSubscribers.Audience;
import dev.arbor.events.deliveries.DeliveryStore.Due;
import dev.arbor.events.deliveries.DeliveryStore.Recorded;
import dev.arbor.events.providers.HookReading;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.tracing.Traced;
import io.javalin.http.Context;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * {@code POST /events/hooks/{token}}: a provider's delivery, authenticated by the URL's token and the provider's
 * signature (no bearer token). A handshake is answered; anything else is recorded before the answer, and only an
 * accepted delivery is dispatched, after its row is committed.
 */
final class Ingest {
    static final String PATH = "/events/hooks/{token}";
    /** The tokens create hands out: 32 random bytes in unpadded base64url. */
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]{43}");

    private final EventConnections connections;
    private final DeliveryStore store;
    private final Dispatcher dispatcher;
    private final Supplier<String> publicUrl;
    private final DeliverySettings settings;
    private final Meter.MeterProvider<Counter> refusals;
    private final Clock clock;

    Ingest(
            EventConnections connections,
            DeliveryStore store,
            Dispatcher dispatcher,
            Supplier<String> publicUrl,
            DeliverySettings settings,
            MeterRegistry meters,
            Clock clock) {
        this.connections = requireNonNull(connections, "connections");
        this.store = requireNonNull(store, "store");
        this.dispatcher = requireNonNull(dispatcher, "dispatcher");
        this.publicUrl = requireNonNull(publicUrl, "publicUrl");
        this.settings = requireNonNull(settings, "settings");
        this.refusals = Counter.builder("arbor.event.deliveries.refused")
                .description("Refused webhook deliveries (a bad signature) by provider: recorded in the delivery log, "
                        + "or beyond a connection's limit for the hour and only counted (the connection says how many)")
                .withRegistry(meters);
        this.clock = requireNonNull(clock, "clock");
    }

    void receive(Context ctx) {
        String token = ctx.pathParam("token");
        if (!TOKEN.matcher(token).matches()) {
            throw unknown();
        }
        byte[] body = Requests.body(ctx);
        HookReading reading;
        try (Traced span = DeliverySpans.verifying()) {
            reading = connections
                    .readHook(
                            token,
                            body,
                            headers(ctx),
                            url(token, ctx.queryString()),
                            clock,
                            settings.refusedBodyChars())
                    .orElseThrow(Ingest::unknown);
            DeliverySpans.read(span, reading);
        }
        Instant now = clock.instant();
        switch (reading) {
            case HookReading.Handshake handshake -> {
                ctx.status(200);
                ctx.contentType(handshake.contentType());
                ctx.result(handshake.reply());
            }
            case HookReading.Refused refused -> {
                // anyone who knows the URL can send these: only so many an hour are recorded, the rest counted
                if (!connections.admitRefused(refused.connectionId(), now, settings.refusedPerHour())) {
                    refusals.withTags("provider", refused.provider(), "outcome", "not_recorded")
                            .increment();
                    throw ApiException.of(
                            ErrorCode.INVALID_SIGNATURE,
                            "The delivery's signature is not valid: " + refused.detail() + " It was not recorded "
                                    + "(this connection's refused deliveries of this hour are recorded already) and "
                                    + "will not be processed.");
                }
                refusals.withTags("provider", refused.provider(), "outcome", "recorded")
                        .increment();
                Delivery delivery = refusedOrUnreadable(
                        refused.connectionId(),
                        refused.provider(),
                        Delivery.Status.REFUSED,
                        signature(false, Optional.of(refused.reason()), refused.detail(), false),
                        refused.headers(),
                        refused.body(),
                        Optional.empty(),
                        now);
                store.record(delivery, Optional.empty());
                throw ApiException.of(
                        ErrorCode.INVALID_SIGNATURE,
                        "The delivery's signature is not valid: " + refused.detail() + " It was recorded as "
                                + delivery.id() + " and will not be processed.");
            }
            case HookReading.Unreadable unreadable -> {
                Delivery delivery = refusedOrUnreadable(
                        unreadable.connectionId(),
                        unreadable.provider(),
                        Delivery.Status.UNREADABLE,
                        signature(true, Optional.empty(), "", unreadable.previousSecret()),
                        unreadable.headers(),
                        unreadable.body(),
                        Optional.of(unreadable.detail()),
                        now);
                store.record(delivery, Optional.empty());
                throw ApiException.of(
                        ErrorCode.UNREADABLE_DELIVERY,
                        unreadable.detail() + " The delivery was recorded as " + delivery.id()
                                + " and will not be processed.");
            }
            case HookReading.Verified verified -> accept(ctx, verified, now);
        }
    }

    private void accept(Context ctx, HookReading.Verified verified, Instant now) {
        var delivery = new Delivery(
                Ids.next("evd"),
                verified.connectionId(),
                verified.provider(),
                Delivery.Status.ACCEPTED,
                Optional.of(verified.type()),
                verified.listedType(),
                verified.providerDeliveryId(),
                0,
                Optional.empty(),
                signature(true, Optional.empty(), "", verified.previousSecret()),
                headersJson(verified.headers()),
                Optional.of(verified.payload()),
                Optional.empty(),
                verified.occurredAt().orElse(now),
                now,
                OptionalInt.of(0),
                0,
                Optional.empty(),
                Optional.empty(),
                OptionalLong.empty());
        Recorded recorded;
        Optional<String> traceParent;
        try (Traced span = DeliverySpans.recording(delivery)) {
            traceParent = span.traceparent();
            recorded = store.record(delivery, traceParent);
            span.with("arbor.delivery.duplicate", recorded instanceof Recorded.Repeat ? "true" : "false");
        }
        var receipt = new LinkedHashMap<String, Object>();
        receipt.put("object", "event.delivery.receipt");
        switch (recorded) {
            case Recorded.Fresh fresh -> {
                dispatcher.offer(new Due(fresh.delivery(), 0, Audience.everyone(), traceParent));
                receipt.put("delivery_id", fresh.delivery().id());
                receipt.put("duplicate", false);
            }
            case Recorded.Repeat repeat -> {
                receipt.put("delivery_id", repeat.firstId());
                receipt.put("duplicate", true);
            }
        }
        Responses.ok(ctx, receipt);
    }

    private static Delivery refusedOrUnreadable(
            String connectionId,
            String provider,
            Delivery.Status status,
            ObjectNode signature,
            Map<String, List<String>> headers,
            HookReading.KeptBody body,
            Optional<String> error,
            Instant now) {
        return new Delivery(
                Ids.next("evd"),
                connectionId,
                provider,
                status,
                Optional.empty(),
                false,
                Optional.empty(),
                0,
                Optional.empty(),
                signature,
                headersJson(headers),
                Optional.empty(),
                Optional.of(body.text()),
                now,
                now,
                OptionalInt.empty(),
                0,
                Optional.empty(),
                error,
                body.truncatedFrom());
    }

    /** What checking the signature found, as the log shows it: never a secret or a computed signature. */
    private static ObjectNode signature(boolean valid, Optional<String> reason, String detail, boolean previous) {
        ObjectNode signature = Json.object();
        signature.put("valid", valid);
        signature.put("reason", reason.orElse(null));
        signature.put("detail", detail.isEmpty() ? null : detail);
        signature.put("secret", valid ? (previous ? "previous" : "current") : null);
        return signature;
    }

    private static ObjectNode headersJson(Map<String, List<String>> headers) {
        ObjectNode json = Json.object();
        headers.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> json.put(e.getKey(), String.join(", ", e.getValue())));
        return json;
    }

    private static Map<String, List<String>> headers(Context ctx) {
        var headers = new LinkedHashMap<String, List<String>>();
        for (String name : Collections.list(ctx.req().getHeaderNames())) {
            headers.put(name, new ArrayList<>(Collections.list(ctx.req().getHeaders(name))));
        }
        return headers;
    }

    /** The URL the provider called: the public one, with the query as sent (Twilio signs it). */
    private URI url(String token, String query) {
        String base = publicUrl.get() + "/events/hooks/" + token;
        if (query != null && !query.isEmpty()) {
            try {
                return URI.create(base + "?" + query);
            } catch (IllegalArgumentException e) {
                // a query no URI can hold: the delivery is read without it, and a scheme that signs it refuses it
            }
        }
        return URI.create(base);
    }

    private static ApiException unknown() {
        return ApiException.of(ErrorCode.HOOK_NOT_FOUND, "There is no webhook at this URL.");
    }
}
