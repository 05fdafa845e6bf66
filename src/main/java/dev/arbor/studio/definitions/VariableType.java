package dev.arbor.studio.definitions;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** The types a template variable may have, with the constraint keys each accepts. */
public enum VariableType {
    STRING(Set.of("min_length", "max_length", "pattern", "enum", "format")),
    INTEGER(Set.of("minimum", "maximum", "enum")),
    NUMBER(Set.of("minimum", "maximum")),
    BOOLEAN(Set.of()),
    JSON(Set.of("schema", "max_bytes")),
    OPTIONS(Set.of("min_items", "max_items")),
    IMAGE(Set.of("max_bytes")),
    AUDIO(Set.of("max_bytes")),
    VIDEO(Set.of("max_bytes"));

    public static final List<String> COMMON_KEYS =
            List.of("type", "description", "required", "default", "example", "sensitive", "trusted");

    private final Set<String> constraints;

    VariableType(Set<String> constraints) {
        this.constraints = constraints;
    }

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public Set<String> constraints() {
        return constraints;
    }

    public boolean isMedia() {
        return this == IMAGE || this == AUDIO || this == VIDEO;
    }

    public static Optional<VariableType> parse(String text) {
        for (VariableType type : values()) {
            if (type.wire().equals(text)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    public static String names() {
        return "string, integer, number, boolean, json, options, image, audio, video";
    }
}
