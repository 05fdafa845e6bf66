package dev.arbor.platform.errors;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Builds the {@code param} paths of the error envelope: {@code a.b}, {@code a[0]}, {@code a["odd key"]}. */
public final class ParamPath {
    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

    private ParamPath() {}

    public static String key(@Nullable String parent, String key) {
        if (PLAIN_KEY.matcher(key).matches()) {
            return parent == null || parent.isEmpty() ? key : parent + "." + key;
        }
        String quoted = "[\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
        return parent == null ? quoted : parent + quoted;
    }

    public static String index(String parent, int index) {
        return parent + "[" + index + "]";
    }
}
