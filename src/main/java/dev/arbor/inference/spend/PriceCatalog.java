package dev.arbor.inference.spend;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The public list prices of the common providers' models, shipped as {@code catalog/model-prices.json} with the date
 * they were read, and checked at start: a provider without a name or an API URL, a model without an input price, a
 * price that is negative, absurd or finer than a micro-dollar per million tokens, or a duplicate stops the start. A
 * cloud model is priced from it by its provider (the catalog provider whose API URL it was added with, or the one an
 * admin names) and the provider's name for the model.
 */
final class PriceCatalog {
    static final String RESOURCE = "/catalog/model-prices.json";

    /** One model's catalog price. */
    record Entry(String provider, String model, Price price) {}

    private record Provider(String name, String apiUrl, Map<String, Price> models) {}

    private final LocalDate asOf;
    private final Map<String, Provider> providers;

    private PriceCatalog(LocalDate asOf, Map<String, Provider> providers) {
        this.asOf = asOf;
        this.providers = Collections.unmodifiableMap(new LinkedHashMap<>(providers));
    }

    static PriceCatalog load() {
        return load(RESOURCE);
    }

    static PriceCatalog load(String resource) {
        JsonNode json;
        try (InputStream in = requireNonNull(PriceCatalog.class.getResourceAsStream(resource), resource)) {
            json = Json.read(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return parse(json, resource);
    }

    static PriceCatalog parse(JsonNode json, String source) {
        LocalDate asOf;
        try {
            asOf = LocalDate.parse(json.path("as_of").asText(""));
        } catch (DateTimeParseException e) {
            throw invalid(source, "its as_of is not a date (YYYY-MM-DD): " + json.path("as_of"));
        }
        var providers = new LinkedHashMap<String, Provider>();
        for (JsonNode entry : json.path("providers")) {
            String name = entry.path("name").asText("");
            String apiUrl = entry.path("api_url").asText("");
            if (!name.matches("[a-z0-9][a-z0-9_-]{0,63}") || !apiUrl.startsWith("https://")) {
                throw invalid(source, "a provider needs a lower-case name and an https api_url: " + entry);
            }
            var models = new LinkedHashMap<String, Price>();
            for (var model : entry.path("models").properties()) {
                models.put(model.getKey(), price(model.getValue(), source, name + "/" + model.getKey()));
            }
            if (models.isEmpty() || providers.put(name, new Provider(name, normalized(apiUrl), models)) != null) {
                throw invalid(source, "provider '" + name + "' is listed twice or has no models");
            }
        }
        if (providers.isEmpty()) {
            throw invalid(source, "it lists no providers");
        }
        return new PriceCatalog(asOf, providers);
    }

    private static Price price(JsonNode prices, String source, String what) {
        Optional<BigDecimal> input = amount(prices, "input", source, what);
        Optional<BigDecimal> output = amount(prices, "output", source, what);
        Optional<BigDecimal> cached = amount(prices, "cached_input", source, what);
        var unknown = new ArrayList<String>();
        prices.fieldNames().forEachRemaining(field -> {
            if (!List.of("input", "output", "cached_input").contains(field)) {
                unknown.add(field);
            }
        });
        if (input.isEmpty() || !unknown.isEmpty()) {
            throw invalid(source, what + " needs an input price and has only input, output, cached_input: " + prices);
        }
        return Price.of(input.get(), output.orElse(BigDecimal.ZERO), cached);
    }

    private static Optional<BigDecimal> amount(JsonNode prices, String field, String source, String what) {
        JsonNode node = prices.path(field);
        if (node.isMissingNode()) {
            return Optional.empty();
        }
        if (!node.isNumber()) {
            throw invalid(source, what + "'s " + field + " is not a number: " + node);
        }
        BigDecimal usd = node.isFloatingPointNumber() ? BigDecimal.valueOf(node.doubleValue()) : node.decimalValue();
        Price.problem(usd).ifPresent(problem -> {
            throw invalid(source, what + "'s " + field + " " + problem + ": " + node);
        });
        return Optional.of(usd);
    }

    private static IllegalStateException invalid(String source, String why) {
        return new IllegalStateException("the price catalog " + source + " is invalid: " + why);
    }

    /** The day the catalog's prices were read from the providers' pages. */
    LocalDate asOf() {
        return asOf;
    }

    /** The catalog price of {@code provider}'s {@code model}. */
    Optional<Price> find(String provider, String model) {
        return Optional.ofNullable(providers.get(provider.toLowerCase(Locale.ROOT)))
                .flatMap(p -> Optional.ofNullable(p.models().get(model)));
    }

    /** The catalog provider whose API is at {@code baseUrl}. */
    Optional<String> providerAt(URI baseUrl) {
        String url = normalized(baseUrl.toString());
        return providers.values().stream()
                .filter(p -> p.apiUrl().equals(url))
                .map(Provider::name)
                .findFirst();
    }

    /** Every entry, provider by provider in the catalog's order. */
    List<Entry> entries() {
        var entries = new ArrayList<Entry>();
        providers
                .values()
                .forEach(p -> p.models().forEach((model, price) -> entries.add(new Entry(p.name(), model, price))));
        return entries;
    }

    private static String normalized(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        return lower.endsWith("/") ? lower.substring(0, lower.length() - 1) : lower;
    }
}
