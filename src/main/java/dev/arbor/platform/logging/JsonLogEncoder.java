package dev.arbor.platform.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One JSON object a line ({@code ARBOR_LOG_FORMAT=json}), for log shippers: {@code time}, {@code level},
 * {@code logger}, {@code message}, and when known {@code request_id}, {@code trace_id}, {@code span_id},
 * {@code project}, and the exception with its stack trace as one {@code exception} field. Request lines are written
 * the same way ({@link #line}).
 */
public final class JsonLogEncoder extends EncoderBase<ILoggingEvent> {
    /** The log context's keys (MDC) copied into each line, under the same names. */
    static final String[] CONTEXT = {"request_id", "trace_id", "span_id", "project"};

    private static final JsonFactory JSON = new JsonFactory();
    private static final byte[] NOTHING = new byte[0];

    @Override
    public byte[] headerBytes() {
        return NOTHING;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        IThrowableProxy thrown = event.getThrowableProxy();
        return line(
                Instant.ofEpochMilli(event.getTimeStamp()),
                event.getLevel().toString(),
                event.getLoggerName(),
                event.getFormattedMessage(),
                event.getMDCPropertyMap(),
                thrown == null ? null : ThrowableProxyUtil.asString(thrown),
                Map.of());
    }

    /**
     * A line: {@code context} gives the {@link #CONTEXT} fields it has, {@code fields} any more (a request line's
     * method and status), strings or numbers.
     */
    public static byte[] line(
            Instant time,
            String level,
            String logger,
            String message,
            Map<String, String> context,
            @Nullable String exception,
            Map<String, Object> fields) {
        var out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("time", time.toString());
            json.writeStringField("level", level);
            json.writeStringField("logger", logger);
            json.writeStringField("message", message);
            for (String key : CONTEXT) {
                String value = context.get(key);
                if (value != null && !value.isEmpty()) {
                    json.writeStringField(key, value);
                }
            }
            for (Map.Entry<String, Object> field : fields.entrySet()) {
                if (field.getValue() instanceof Number number) {
                    json.writeFieldName(field.getKey());
                    json.writeNumber(number.toString());
                } else {
                    json.writeStringField(field.getKey(), String.valueOf(field.getValue()));
                }
            }
            if (exception != null) {
                json.writeStringField("exception", exception);
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.write('\n');
        return out.toByteArray();
    }

    @Override
    public byte[] footerBytes() {
        return NOTHING;
    }
}
