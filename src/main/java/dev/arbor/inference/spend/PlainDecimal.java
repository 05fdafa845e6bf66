package dev.arbor.inference.spend;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import java.io.IOException;
import java.math.BigDecimal;

/** Writes an amount as a JSON number in plain digits ({@code 0.00000015}, never {@code 1.5E-7}), exactly. */
final class PlainDecimal extends JsonSerializer<BigDecimal> {
    @Override
    public void serialize(BigDecimal value, JsonGenerator json, SerializerProvider serializers) throws IOException {
        json.writeNumber(value.toPlainString());
    }
}
