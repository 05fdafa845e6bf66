package dev.arbor.inference.spend;

import java.math.BigDecimal;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A model's price in USD per million tokens, held exactly as whole micro-dollars per million tokens (so at most six
 * decimal places), which makes a request's cost a whole number of pico-dollars: {@code tokens × micros}.
 *
 * @param inputMicros a prompt's (or an embedding's input) tokens
 * @param outputMicros a completion's tokens
 * @param cachedInputMicros the provider's price of prompt tokens read from its cache, where it has one
 */
public record Price(long inputMicros, long outputMicros, OptionalLong cachedInputMicros) {
    /** The most a price may be, per million tokens: above it is a typo, not a price. */
    public static final BigDecimal MAX_USD = BigDecimal.valueOf(10_000);

    /** The most decimal places a price has. */
    public static final int SCALE = 6;

    /** What a local deployment costs until its admin says otherwise. */
    public static final Price FREE = new Price(0, 0, OptionalLong.empty());

    public Price {
        if (inputMicros < 0 || outputMicros < 0 || cachedInputMicros.orElse(0) < 0) {
            throw new IllegalArgumentException("a price is not negative");
        }
    }

    /** A price from USD amounts; each must pass {@link #problem}. */
    static Price of(BigDecimal input, BigDecimal output, Optional<BigDecimal> cachedInput) {
        return new Price(
                micros(input),
                micros(output),
                cachedInput.map(c -> OptionalLong.of(micros(c))).orElse(OptionalLong.empty()));
    }

    /** Why {@code usd} is not a price (negative, more than six decimals, absurdly large); empty when it is one. */
    static Optional<String> problem(BigDecimal usd) {
        if (usd.signum() < 0) {
            return Optional.of("must not be negative");
        }
        if (usd.stripTrailingZeros().scale() > SCALE) {
            return Optional.of("has more than " + SCALE + " decimal places");
        }
        if (usd.compareTo(MAX_USD) > 0) {
            return Optional.of("must be at most " + MAX_USD + " USD per million tokens");
        }
        return Optional.empty();
    }

    private static long micros(BigDecimal usd) {
        return usd.movePointRight(SCALE).longValueExact();
    }

    /**
     * What {@code promptTokens} and {@code completionTokens} cost, in pico-dollars (10⁻¹² USD); saturates rather than
     * wraps for counts no request has.
     */
    public long costPicoUsd(long promptTokens, long completionTokens) {
        return costPicoUsd(promptTokens, 0, completionTokens);
    }

    /**
     * {@link #costPicoUsd(long, long)}, with {@code cachedTokens} of the prompt's tokens (at most all of them) at the
     * cached-input price, where the price has one (else at the input price).
     */
    public long costPicoUsd(long promptTokens, long cachedTokens, long completionTokens) {
        long prompt = Math.max(0, promptTokens);
        long cached = Math.min(prompt, Math.max(0, cachedTokens));
        long fresh = saturatedProduct(prompt - cached, inputMicros);
        long fromCache = saturatedProduct(cached, cachedInputMicros.orElse(inputMicros));
        long completion = saturatedProduct(Math.max(0, completionTokens), outputMicros);
        long sum = fresh + fromCache;
        sum = sum < 0 ? Long.MAX_VALUE : sum + completion;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private static long saturatedProduct(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return high != 0 || low < 0 ? Long.MAX_VALUE : low;
    }

    public BigDecimal inputUsd() {
        return usd(inputMicros);
    }

    public BigDecimal outputUsd() {
        return usd(outputMicros);
    }

    public Optional<BigDecimal> cachedInputUsd() {
        return cachedInputMicros.isPresent() ? Optional.of(usd(cachedInputMicros.getAsLong())) : Optional.empty();
    }

    private static BigDecimal usd(long micros) {
        return plain(BigDecimal.valueOf(micros, SCALE));
    }

    /** Pico-dollars as USD, exactly. */
    public static BigDecimal usdOfPicos(long picos) {
        return plain(BigDecimal.valueOf(picos, 12));
    }

    /** Without trailing zeros, and never in exponent form ({@code 10}, not {@code 1E+1}). */
    static BigDecimal plain(BigDecimal amount) {
        BigDecimal stripped = amount.stripTrailingZeros();
        return stripped.scale() < 0 ? stripped.setScale(0) : stripped;
    }
}
