package dev.arbor.inference.spend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.platform.json.Json;
import java.net.URI;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The shipped price catalog loads and prices exactly; a catalog that does not make sense stops the start. */
class PriceCatalogTest {
    @Test
    void theShippedCatalogPricesAProvidersModelByItsApiUrlAndName() {
        PriceCatalog catalog = PriceCatalog.load();

        assertThat(catalog.providerAt(URI.create("https://api.openai.com/v1/"))).contains("openai");
        assertThat(catalog.find("openai", "gpt-4o-mini"))
                .contains(new Price(150_000, 600_000, OptionalLong.of(75_000)));
        assertThat(catalog.find("openai", "text-embedding-3-small")
                        .orElseThrow()
                        .outputMicros())
                .isZero();
        assertThat(catalog.asOf()).isNotNull();
    }

    @Test
    void aCostIsExactInPicoDollars() {
        Price gpt4oMini = PriceCatalog.load().find("openai", "gpt-4o-mini").orElseThrow();

        // 1,234,567 prompt tokens at 0.15 and 89 completion tokens at 0.60 USD per million
        assertThat(Price.usdOfPicos(gpt4oMini.costPicoUsd(1_234_567, 89)).toPlainString())
                .isEqualTo("0.18523845");
    }

    static Stream<Arguments> invalidCatalogs() {
        String ok = "{\"name\": \"p\", \"api_url\": \"https://p.example/v1\", \"models\": {\"m\": {\"input\": 1}}}";
        return Stream.of(
                Arguments.of("no date", "{\"providers\": [" + ok + "]}"),
                Arguments.of("no providers", "{\"as_of\": \"2025-10-01\", \"providers\": []}"),
                Arguments.of("a negative price", catalog("{\"m\": {\"input\": -1}}")),
                Arguments.of("a price finer than a micro-dollar", catalog("{\"m\": {\"input\": 0.0000001}}")),
                Arguments.of("an absurd price", catalog("{\"m\": {\"input\": 1000000}}")),
                Arguments.of("no input price", catalog("{\"m\": {\"output\": 1}}")),
                Arguments.of("an unknown field", catalog("{\"m\": {\"input\": 1, \"per\": \"token\"}}")),
                Arguments.of("a price as text", catalog("{\"m\": {\"input\": \"1\"}}")),
                Arguments.of(
                        "a provider twice", "{\"as_of\": \"2025-10-01\", \"providers\": [" + ok + ", " + ok + "]}"));
    }

    private static String catalog(String models) {
        return "{\"as_of\": \"2025-10-01\", \"providers\": [{\"name\": \"p\", \"api_url\": \"https://p.example/v1\", "
                + "\"models\": " + models + "}]}";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidCatalogs")
    void aCatalogThatMakesNoSenseStopsTheStart(String what, String json) {
        assertThatThrownBy(() -> PriceCatalog.parse(Json.read(json), "test"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("price catalog test is invalid");
    }
}
