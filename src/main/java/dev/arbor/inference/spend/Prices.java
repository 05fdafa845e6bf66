package dev.arbor.inference.spend;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Columns;
import dev.arbor.platform.db.Database;
import java.net.URI;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The price of every endpoint a request may reach, held in memory for the request path: the catalog's list prices,
 * and the prices admins set per endpoint (a cloud model's id or a deployment's), kept in {@code model_prices} and
 * reloaded when another server changes them. What an endpoint costs, in this order: the price its admin set, or the
 * catalog price it was told to be priced as ({@code openai/gpt-4o-mini}); a cloud model added from a catalog
 * provider's API URL, the catalog's price of the provider's name for it; a deployment, nothing. A cloud model none of
 * these prices is unpriced: its requests are counted, their cost is unknown.
 */
public final class Prices {
    /** What an admin set for an endpoint: its own prices, or a catalog entry's. */
    public sealed interface Setting {
        record Own(Price price) implements Setting {
            public Own {
                requireNonNull(price, "price");
            }
        }

        /** The catalog's price of {@code provider}'s {@code model}. */
        record As(String provider, String model) implements Setting {
            public As {
                requireNonNull(provider, "provider");
                requireNonNull(model, "model");
            }
        }
    }

    /** An endpoint's setting as stored. */
    public record Override(String endpoint, Setting setting, long setAtMillis) {}

    private final PriceCatalog catalog;
    private final Database database;
    private final Clock clock;
    private volatile Map<String, Override> overrides;

    public Prices(Database database, Clock clock) {
        this.catalog = PriceCatalog.load();
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
        this.overrides = load();
    }

    /** Reads the admins' prices again (another server changed them). */
    public void reload() {
        overrides = load();
    }

    /** The day the shipped catalog's prices were read. */
    public LocalDate catalogDate() {
        return catalog.asOf();
    }

    /** The price of a cloud model, by its registry id, its API's base URL and the API's name for it. */
    public Optional<Price> cloudModel(String modelId, URI baseUrl, String remoteModel) {
        return overridden(modelId).or(() -> catalog.providerAt(baseUrl).flatMap(p -> catalog.find(p, remoteModel)));
    }

    /** The price of a deployment: its admin's, else nothing. */
    public Price deployment(String deploymentId) {
        return overridden(deploymentId).orElse(Price.FREE);
    }

    private Optional<Price> overridden(String endpoint) {
        Override set = overrides.get(endpoint);
        if (set == null) {
            return Optional.empty();
        }
        return switch (set.setting()) {
            case Setting.Own own -> Optional.of(own.price());
            case Setting.As as -> catalog.find(as.provider(), as.model());
        };
    }

    /** Whether the catalog lists {@code provider}'s {@code model}. */
    boolean inCatalog(String provider, String model) {
        return catalog.find(provider, model).isPresent();
    }

    List<PriceCatalog.Entry> catalogEntries() {
        return catalog.entries();
    }

    List<Override> overrides() {
        return overrides.values().stream()
                .sorted(java.util.Comparator.comparing(Override::endpoint))
                .toList();
    }

    /** Sets an endpoint's price (replacing what was set). */
    Override set(String endpoint, Setting setting) {
        long now = clock.millis();
        database.write(handle -> {
            handle.createUpdate("DELETE FROM model_prices WHERE endpoint = :endpoint")
                    .bind("endpoint", endpoint)
                    .execute();
            var insert = handle.createUpdate("INSERT INTO model_prices (endpoint, input_micros, output_micros, "
                            + "cached_input_micros, priced_as, set_at) VALUES (:endpoint, :input, :output, :cached, "
                            + ":as, :now)")
                    .bind("endpoint", endpoint)
                    .bind("now", now);
            switch (setting) {
                case Setting.Own own ->
                    insert.bind("input", own.price().inputMicros())
                            .bind("output", own.price().outputMicros())
                            .bind("cached", boxed(own.price().cachedInputMicros()))
                            .bind("as", (String) null);
                case Setting.As as ->
                    insert.bind("input", (Long) null)
                            .bind("output", (Long) null)
                            .bind("cached", (Long) null)
                            .bind("as", as.provider() + "/" + as.model());
            }
            return insert.execute();
        });
        reload();
        return Optional.ofNullable(overrides.get(endpoint))
                .orElseThrow(() -> new IllegalStateException("the price of " + endpoint + " was not stored"));
    }

    /** Removes an endpoint's price; whether it had one. */
    boolean clear(String endpoint) {
        boolean removed =
                database.write(handle -> handle.createUpdate("DELETE FROM model_prices WHERE endpoint = :endpoint")
                                .bind("endpoint", endpoint)
                                .execute()
                        > 0);
        reload();
        return removed;
    }

    private Map<String, Override> load() {
        return database
                .read(handle -> handle.createQuery("SELECT * FROM model_prices")
                        .map((rs, ctx) -> row(rs))
                        .list())
                .stream()
                .collect(Collectors.toUnmodifiableMap(Override::endpoint, Function.identity()));
    }

    private static Override row(ResultSet rs) throws SQLException {
        String as = rs.getString("priced_as");
        Setting setting;
        if (as != null) {
            int slash = as.indexOf('/');
            setting = new Setting.As(as.substring(0, slash), as.substring(slash + 1));
        } else {
            Optional<Long> cached = Columns.optionalLong(rs, "cached_input_micros");
            setting = new Setting.Own(new Price(
                    rs.getLong("input_micros"),
                    rs.getLong("output_micros"),
                    cached.map(OptionalLong::of).orElse(OptionalLong.empty())));
        }
        return new Override(rs.getString("endpoint"), setting, rs.getLong("set_at"));
    }

    private static @org.jspecify.annotations.Nullable Long boxed(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : null;
    }
}
