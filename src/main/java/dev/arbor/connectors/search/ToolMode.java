package dev.arbor.connectors.search;

import java.util.Locale;
import java.util.Optional;

/** How an agent's endpoint offers its tools: every one in {@code tools/list}, or two meta tools to search and call. */
public enum ToolMode {
    ALL,
    SEARCH;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<ToolMode> of(String wire) {
        for (ToolMode mode : values()) {
            if (mode.wire().equals(wire)) {
                return Optional.of(mode);
            }
        }
        return Optional.empty();
    }
}
