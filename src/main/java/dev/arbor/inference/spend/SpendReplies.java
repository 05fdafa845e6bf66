package dev.arbor.inference.spend;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The answers of {@code /spend} and {@code /prices}, as records the one JSON codec writes. Times are Unix seconds. */
final class SpendReplies {
    private SpendReplies() {}

    @JsonPropertyOrder({"group", "requests", "prompt_tokens", "completion_tokens", "cost_usd", "unpriced_requests"})
    record RowJson(
            @JsonProperty("group") Map<String, @Nullable String> group,
            @JsonProperty("requests") long requests,
            @JsonProperty("prompt_tokens") long promptTokens,
            @JsonProperty("completion_tokens") long completionTokens,

            @JsonProperty("cost_usd") @JsonSerialize(using = PlainDecimal.class)
            BigDecimal costUsd,

            @JsonProperty("unpriced_requests") long unpricedRequests) {
        static RowJson of(SpendStore.Row row) {
            return new RowJson(
                    row.group(),
                    row.requests(),
                    row.promptTokens(),
                    row.completionTokens(),
                    row.costUsd(),
                    row.unpricedRequests());
        }
    }

    @JsonPropertyOrder({"object", "from", "to", "group_by", "data"})
    record SpendJson(
            @JsonProperty("object") String object,
            @JsonProperty("from") long from,
            @JsonProperty("to") long to,
            @JsonProperty("group_by") List<String> groupBy,
            @JsonProperty("data") List<RowJson> data) {}

    @JsonPropertyOrder({"provider", "model", "input", "output", "cached_input"})
    record CatalogPriceJson(
            @JsonProperty("provider") String provider,
            @JsonProperty("model") String model,

            @JsonProperty("input") @JsonSerialize(using = PlainDecimal.class)
            BigDecimal input,

            @JsonProperty("output") @JsonSerialize(using = PlainDecimal.class)
            BigDecimal output,

            @JsonProperty("cached_input") @JsonSerialize(using = PlainDecimal.class) @Nullable
            BigDecimal cachedInput) {
        static CatalogPriceJson of(PriceCatalog.Entry entry) {
            return new CatalogPriceJson(
                    entry.provider(),
                    entry.model(),
                    entry.price().inputUsd(),
                    entry.price().outputUsd(),
                    entry.price().cachedInputUsd().orElse(null));
        }
    }

    /** An endpoint's price as an admin set it: its own amounts, or the catalog entry it is priced as. */
    @JsonPropertyOrder({"object", "endpoint", "input", "output", "cached_input", "priced_as", "set_at"})
    record PriceJson(
            @JsonProperty("object") String object,
            @JsonProperty("endpoint") String endpoint,

            @JsonProperty("input") @JsonSerialize(using = PlainDecimal.class) @Nullable
            BigDecimal input,

            @JsonProperty("output") @JsonSerialize(using = PlainDecimal.class) @Nullable
            BigDecimal output,

            @JsonProperty("cached_input") @JsonSerialize(using = PlainDecimal.class) @Nullable
            BigDecimal cachedInput,

            @JsonProperty("priced_as") @Nullable String pricedAs,
            @JsonProperty("set_at") long setAt) {
        static PriceJson of(Prices.Override set) {
            return switch (set.setting()) {
                case Prices.Setting.Own own ->
                    new PriceJson(
                            "price",
                            set.endpoint(),
                            own.price().inputUsd(),
                            own.price().outputUsd(),
                            own.price().cachedInputUsd().orElse(null),
                            null,
                            set.setAtMillis() / 1000);
                case Prices.Setting.As as ->
                    new PriceJson(
                            "price",
                            set.endpoint(),
                            null,
                            null,
                            null,
                            as.provider() + "/" + as.model(),
                            set.setAtMillis() / 1000);
            };
        }
    }

    @JsonPropertyOrder({"object", "catalog_date", "catalog", "overrides"})
    record PricesJson(
            @JsonProperty("object") String object,
            @JsonProperty("catalog_date") String catalogDate,
            @JsonProperty("catalog") List<CatalogPriceJson> catalog,
            @JsonProperty("overrides") List<PriceJson> overrides) {}
}
