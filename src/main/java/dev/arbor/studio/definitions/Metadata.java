package dev.arbor.studio.definitions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import java.util.Optional;
import java.util.regex.Pattern;

/** Caller metadata on studio objects: at most 16 string values, keys of 64 and values of 512 characters. */
public final class Metadata {
    public static final int MAX_KEYS = 16;
    public static final int MAX_KEY_LENGTH = 64;
    public static final int MAX_VALUE_LENGTH = 512;
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.:-]{1," + MAX_KEY_LENGTH + "}");

    private Metadata() {}

    /** The metadata when it fits the limits; otherwise records {@code invalid_metadata} problems. */
    public static Optional<ObjectNode> check(JsonNode node, String param, Problems problems) {
        if (!node.isObject()) {
            problems.add(ErrorCode.INVALID_METADATA, param, "`" + param + "` must be an object of string values.");
            return Optional.empty();
        }
        boolean ok = true;
        if (node.size() > MAX_KEYS) {
            problems.add(
                    ErrorCode.INVALID_METADATA,
                    param,
                    "`" + param + "` has " + node.size() + " keys; at most " + MAX_KEYS + " are allowed.");
            ok = false;
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String keyParam = ParamPath.key(param, entry.getKey());
            if (!KEY.matcher(entry.getKey()).matches()) {
                problems.add(
                        ErrorCode.INVALID_METADATA,
                        keyParam,
                        "Metadata keys are 1 to " + MAX_KEY_LENGTH + " characters of letters, digits and _ . : -.");
                ok = false;
            } else if (!entry.getValue().isTextual()) {
                problems.add(ErrorCode.INVALID_METADATA, keyParam, "`" + keyParam + "` must be a string.");
                ok = false;
            } else if (entry.getValue().textValue().length() > MAX_VALUE_LENGTH) {
                problems.add(
                        ErrorCode.INVALID_METADATA,
                        keyParam,
                        "`" + keyParam + "` is longer than " + MAX_VALUE_LENGTH + " characters.");
                ok = false;
            }
        }
        return ok ? Optional.of((ObjectNode) node) : Optional.empty();
    }
}
