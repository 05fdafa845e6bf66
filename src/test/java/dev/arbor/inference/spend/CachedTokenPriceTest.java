package dev.arbor.inference.spend;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.inference.openai.TopLevel;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Prompt tokens the provider read from its cache ({@code usage.prompt_tokens_details.cached_tokens}) are priced at the
 * cached-input price, the rest of the prompt at the input price.
 */
class CachedTokenPriceTest {
    /** gpt-4o's list price: 2.50 in, 1.25 cached in, 10 out (USD per million tokens), in micro-dollars. */
    private static final Price WITH_CACHE = new Price(2_500_000, 10_000_000, OptionalLong.of(1_250_000));

    private static final Price WITHOUT_CACHE = new Price(2_500_000, 10_000_000, OptionalLong.empty());

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // what, prompt, cached, completion, cost with a cached price (pico-USD), without one
        "no cached tokens, 1000, 0, 100, 3500000000, 3500000000",
        "800 of 1000 cached, 1000, 800, 100, 2500000000, 3500000000",
        "the whole prompt cached, 1000, 1000, 0, 1250000000, 2500000000",
        "more cached than the prompt counts as all of it, 1000, 5000, 0, 1250000000, 2500000000",
    })
    void cachedPromptTokensCostTheCachedInputPrice(
            String what, long prompt, long cached, long completion, long withCache, long withoutCache) {
        assertThat(WITH_CACHE.costPicoUsd(prompt, cached, completion)).isEqualTo(withCache);
        assertThat(WITHOUT_CACHE.costPicoUsd(prompt, cached, completion)).isEqualTo(withoutCache);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "OpenAI's usage with cached tokens | {\"usage\": {\"prompt_tokens\": 1000, \"completion_tokens\": 100, "
                        + "\"prompt_tokens_details\": {\"cached_tokens\": 800, \"audio_tokens\": 0}}} | 800",
                "usage without details | {\"usage\": {\"prompt_tokens\": 1000, \"completion_tokens\": 100}} | -1",
                "details without cached tokens | {\"usage\": {\"prompt_tokens\": 9, \"prompt_tokens_details\": {}}} | -1",
                "cached tokens null | {\"usage\": {\"prompt_tokens_details\": {\"cached_tokens\": null}}} | -1",
            })
    void anAnswersCachedTokensAreRead(String what, String answer, long cached) throws Exception {
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        TopLevel.Usage usage = TopLevel.scan(bytes, 0, bytes.length).usage();
        assertThat(usage.cachedTokens()).isEqualTo(cached < 0 ? OptionalLong.empty() : OptionalLong.of(cached));
    }
}
