package dev.arbor.platform.logging;

import dev.arbor.platform.config.ConfigException;

/**
 * How the server writes its log lines on stderr ({@code ARBOR_LOG_FORMAT}): text for a person, or one JSON object a
 * line for a log shipper. The logging configuration picks the appender of the same name.
 */
public enum LogFormat {
    TEXT,
    JSON;

    public static LogFormat parse(String value) {
        return switch (value.trim()) {
            case "text" -> TEXT;
            case "json" -> JSON;
            default -> throw new ConfigException("ARBOR_LOG_FORMAT must be text or json, not '" + value + "'");
        };
    }
}
