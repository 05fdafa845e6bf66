package dev.arbor.inference.spend;

import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.bodies.BodyReader;
import java.math.BigDecimal;
import java.util.Optional;

/**
 * The checks of a price an admin sets: its own amounts (an input price at least; output and cached input where the
 * model has them) or a catalog entry to be priced as, not both; amounts of at most six decimals.
 */
final class PriceRules {
    private PriceRules() {}

    /** The setting a body asks for; its problems joined to {@code body}'s (then what it returns is not used). */
    static Prices.Setting setting(
            Optional<BigDecimal> input,
            Optional<BigDecimal> output,
            Optional<BigDecimal> cachedInput,
            Optional<String> pricedAs,
            Prices prices,
            BodyReader body) {
        check("input", input, body);
        check("output", output, body);
        check("cached_input", cachedInput, body);
        if (pricedAs.isPresent()) {
            if (input.isPresent() || output.isPresent() || cachedInput.isPresent()) {
                body.reject("priced_as", ErrorCode.INVALID_FIELD, "is sent alone, or prices without it");
            }
            String as = pricedAs.get().strip();
            int slash = as.indexOf('/');
            if (slash <= 0 || !prices.inCatalog(as.substring(0, slash), as.substring(slash + 1))) {
                body.reject(
                        "priced_as",
                        ErrorCode.INVALID_FIELD,
                        "names a catalog entry as provider/model (GET /prices), not '" + as + "'");
                return new Prices.Setting.Own(Price.FREE);
            }
            return new Prices.Setting.As(as.substring(0, slash), as.substring(slash + 1));
        }
        if (input.isEmpty()) {
            body.reject("input", ErrorCode.INVALID_FIELD, "is required (USD per million tokens) unless priced_as is");
            return new Prices.Setting.Own(Price.FREE);
        }
        if (!body.problems().isEmpty()) {
            return new Prices.Setting.Own(Price.FREE);
        }
        return new Prices.Setting.Own(Price.of(input.get(), output.orElse(BigDecimal.ZERO), cachedInput));
    }

    private static void check(String field, Optional<BigDecimal> amount, BodyReader body) {
        amount.flatMap(Price::problem).ifPresent(problem -> body.reject(field, ErrorCode.INVALID_FIELD, problem));
    }
}
