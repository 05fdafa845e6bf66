package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A sample answer as the README and the manual show one: JSON shortened with {@code ...}. A {@code ...} member of an object allows
 * more members, a {@code ...} element of an array more elements, a bare {@code ...} value any value, and a string
 * that ends in {@code ...} any string that starts with what comes before. Everything else must be in the real answer
 * as shown, but for values that differ run to run: times ({@code *_at}, {@code *_ms}, {@code uptime_seconds}) and the
 * server's version.
 */
public sealed interface SampleJson {
    /** Why {@code actual} does not fit this sample, or empty when it does. */
    Optional<String> mismatch(JsonNode actual, String key, String where);

    static SampleJson parse(String text) {
        var parser = new Parser(text);
        SampleJson value = parser.value();
        parser.skipSpace();
        if (parser.at < text.length()) {
            throw new IllegalArgumentException("text after the sample at " + parser.at + ": " + text);
        }
        return value;
    }

    record Anything() implements SampleJson {
        @Override
        public Optional<String> mismatch(JsonNode actual, String key, String where) {
            return Optional.empty();
        }
    }

    record Text(String text, boolean prefix) implements SampleJson {
        @Override
        public Optional<String> mismatch(JsonNode actual, String key, String where) {
            if (!actual.isTextual()) {
                return Optional.of(where + " is not a string: " + actual);
            }
            boolean fits = prefix
                    ? actual.textValue().startsWith(text)
                    : actual.textValue().equals(text) || key.equals("version");
            return fits
                    ? Optional.empty()
                    : Optional.of(where + " is " + actual + ", the sample shows \"" + text + (prefix ? "...\"" : "\""));
        }
    }

    record Number(BigDecimal number) implements SampleJson {
        @Override
        public Optional<String> mismatch(JsonNode actual, String key, String where) {
            if (!actual.isNumber()) {
                return Optional.of(where + " is not a number: " + actual);
            }
            boolean varies = key.endsWith("_at") || key.endsWith("_ms") || key.equals("uptime_seconds");
            return varies || actual.decimalValue().compareTo(number) == 0
                    ? Optional.empty()
                    : Optional.of(where + " is " + actual + ", the sample shows " + number);
        }
    }

    record Literal(String literal) implements SampleJson {
        @Override
        public Optional<String> mismatch(JsonNode actual, String key, String where) {
            return actual.toString().equals(literal)
                    ? Optional.empty()
                    : Optional.of(where + " is " + actual + ", the sample shows " + literal);
        }
    }

    record Array(List<SampleJson> elements, boolean open) implements SampleJson {
        @Override
        public Optional<String> mismatch(JsonNode actual, String key, String where) {
            if (!actual.isArray()) {
                return Optional.of(where + " is not an array: " + actual);
            }
            if (actual.size() < elements.size() || (!open && actual.size() != elements.size())) {
                return Optional.of(where + " has " + actual.size() + " elements, the sample shows " + elements.size()
                        + (open ? " or more" : ""));
            }
            for (int i = 0; i < elements.size(); i++) {
                var problem = elements.get(i).mismatch(actual.get(i), key, where + "[" + i + "]");
                if (problem.isPresent()) {
                    return problem;
                }
            }
            return Optional.empty();
        }
    }

    record Obj(Map<String, SampleJson> members, boolean open) implements SampleJson {
        @Override
        public Optional<String> mismatch(JsonNode actual, String key, String where) {
            if (!actual.isObject()) {
                return Optional.of(where + " is not an object: " + actual);
            }
            var names = new HashSet<String>();
            actual.fieldNames().forEachRemaining(names::add);
            if (!open && !names.equals(members.keySet())) {
                return Optional.of(where + " has the members " + names + ", the sample shows " + members.keySet());
            }
            for (var member : members.entrySet()) {
                JsonNode value = actual.get(member.getKey());
                if (value == null) {
                    return Optional.of(where + " has no member \"" + member.getKey() + "\"");
                }
                var problem = member.getValue().mismatch(value, member.getKey(), where + "." + member.getKey());
                if (problem.isPresent()) {
                    return problem;
                }
            }
            return Optional.empty();
        }
    }

    /** Reads the sample's text: JSON's grammar with {@code ...} where a value, member or element may stand. */
    final class Parser {
        private final String text;
        private int at;

        private Parser(String text) {
            this.text = text;
        }

        private SampleJson value() {
            skipSpace();
            if (text.startsWith("...", at)) {
                at += 3;
                return new Anything();
            }
            char first = text.charAt(at);
            return switch (first) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't', 'f', 'n' -> literal();
                default -> number();
            };
        }

        private SampleJson object() {
            var members = new LinkedHashMap<String, SampleJson>();
            boolean open = sequence('}', () -> {
                String name = ((Text) string()).text();
                expect(':');
                members.put(name, value());
            });
            return new Obj(members, open);
        }

        private SampleJson array() {
            var elements = new ArrayList<SampleJson>();
            boolean open = sequence(']', () -> elements.add(value()));
            return new Array(elements, open);
        }

        /**
         * Reads the elements of an object or array up to {@code close}, each with {@code element} unless it is
         * {@code ...}; whether one was.
         */
        private boolean sequence(char close, Runnable element) {
            at++;
            boolean open = false;
            skipSpace();
            if (text.charAt(at) == close) {
                at++;
                return false;
            }
            while (true) {
                skipSpace();
                if (text.startsWith("...", at)) {
                    at += 3;
                    open = true;
                } else {
                    element.run();
                }
                skipSpace();
                char next = text.charAt(at++);
                if (next == close) {
                    return open;
                }
                if (next != ',') {
                    throw new IllegalArgumentException("expected , or " + close + " at " + (at - 1) + ": " + text);
                }
            }
        }

        private SampleJson string() {
            expect('"');
            var value = new StringBuilder();
            while (text.charAt(at) != '"') {
                char c = text.charAt(at++);
                value.append(c == '\\' ? text.charAt(at++) : c);
            }
            at++;
            String read = value.toString();
            return read.endsWith("...") ? new Text(read.substring(0, read.length() - 3), true) : new Text(read, false);
        }

        private SampleJson literal() {
            for (String literal : List.of("true", "false", "null")) {
                if (text.startsWith(literal, at)) {
                    at += literal.length();
                    return new Literal(literal);
                }
            }
            throw new IllegalArgumentException("unknown word at " + at + ": " + text);
        }

        private SampleJson number() {
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            if (start == at) {
                throw new IllegalArgumentException("unexpected '" + text.charAt(at) + "' at " + at + ": " + text);
            }
            return new Number(new BigDecimal(text.substring(start, at)));
        }

        private void expect(char c) {
            skipSpace();
            if (text.charAt(at) != c) {
                throw new IllegalArgumentException("expected " + c + " at " + at + ": " + text);
            }
            at++;
        }

        private void skipSpace() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }
    }
}
