package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A delivery as it reached the server, before anything is trusted: its raw body bytes (signatures are over these,
 * never over a re-encoding), its headers (names in any case) and the full URL the provider called, query included.
 */
record InboundRequest(byte[] body, Map<String, List<String>> headers, URI url) {
    /** One {@code name=value} pair of a form body, in the order sent. */
    record FormField(String name, String value) {}

    InboundRequest {
        body = body.clone();
        var folded = new TreeMap<String, List<String>>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, values) -> folded.merge(name, List.copyOf(values), (a, b) -> {
            var both = new ArrayList<>(a);
            both.addAll(b);
            return List.copyOf(both);
        }));
        headers = Collections.unmodifiableMap(folded);
        requireNonNull(url, "url");
    }

    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The first value of a header (names compare without case), when it was sent. */
    Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name)).filter(v -> !v.isEmpty()).map(List::getFirst);
    }

    /** The first value of a query parameter of the URL, decoded, when it was sent. */
    Optional<String> queryParam(String name) {
        return decodeForm(Optional.ofNullable(url.getRawQuery()).orElse("")).stream()
                .filter(f -> f.name().equals(name))
                .map(FormField::value)
                .findFirst();
    }

    /** The body read as {@code application/x-www-form-urlencoded} fields, in the order sent. */
    List<FormField> formFields() {
        return decodeForm(new String(body, StandardCharsets.UTF_8));
    }

    private static List<FormField> decodeForm(String text) {
        var fields = new ArrayList<FormField>();
        for (String pair : text.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            String value = equals < 0 ? "" : pair.substring(equals + 1);
            fields.add(new FormField(
                    URLDecoder.decode(name, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8)));
        }
        return List.copyOf(fields);
    }
}
