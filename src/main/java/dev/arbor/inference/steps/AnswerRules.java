package dev.arbor.inference.steps;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.re2j.Matcher;
import com.google.re2j.OpenMatches;
import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.openai.StreamEdit;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A router's output content rules applied to an answer's text, whole or as a stream passes. At each place the first
 * match of any rule wins (the earlier rule on a tie): {@code redact} puts {@code [REDACTED]} in its place,
 * {@code block} refuses the answer ({@code content_blocked} naming the rule's step), {@code tag} notes its tag.
 *
 * <p>A stream's text is released as soon as no rule could still match it: only a tail that might be the start of a
 * match (a keyword's first letters, a regular expression that ran into the end of the text so far) waits for the
 * next chunk, so a match split across chunks is found, and text that cannot match goes on at once. A keyword's tail is
 * never longer than the keyword; a regular expression's match is looked for only among the last
 * {@value #REGEX_WINDOW} characters not yet released, so a match longer than that may go out unchanged.
 */
final class AnswerRules implements StreamEdit {
    /** How far back, in characters, a regular expression's unfinished match may start and still hold text back. */
    static final int REGEX_WINDOW = 256;

    /** What a redact rule puts in place of a match, on input and output alike. */
    static final String REDACTED = "[REDACTED]";

    private final List<Exchange.OutputRule> rules;
    private final Operation operation;
    private final Set<String> tags = new LinkedHashSet<>();
    /** Each choice's text not yet released, by its index. */
    private final Map<Integer, StringBuilder> held = new LinkedHashMap<>();

    AnswerRules(List<Exchange.OutputRule> rules, Operation operation) {
        this.rules = List.copyOf(rules);
        this.operation = requireNonNull(operation, "operation");
    }

    /** The tags the rules set on the answer so far. */
    Set<String> tags() {
        return Set.copyOf(tags);
    }

    /** A whole answer's text, the rules applied. */
    String whole(String text) {
        return release(new StringBuilder(text), true);
    }

    @Override
    public ObjectNode chunk(ObjectNode chunk) {
        ObjectNode copy = null;
        JsonNode choices = chunk.path("choices");
        for (int i = 0; i < choices.size(); i++) {
            JsonNode choice = choices.get(i);
            JsonNode text = textOf(choice);
            boolean last = choice.hasNonNull("finish_reason");
            StringBuilder pending = held.computeIfAbsent(choice.path("index").asInt(i), k -> new StringBuilder());
            if (!text.isTextual() && !(last && !pending.isEmpty())) {
                continue;
            }
            String sent = text.isTextual() ? text.textValue() : "";
            boolean nothingHeld = pending.isEmpty();
            pending.append(sent);
            String released = release(pending, last);
            if (nothingHeld && pending.isEmpty() && released.equals(sent)) {
                continue; // the chunk's text goes on as it came
            }
            if (copy == null) {
                copy = chunk.deepCopy();
            }
            setText((ObjectNode) copy.path("choices").get(i), released);
        }
        return copy == null ? chunk : copy;
    }

    @Override
    public Ending finish(ObjectNode last) {
        ArrayNode choices = Json.mapper().createArrayNode();
        held.forEach((index, pending) -> {
            if (!pending.isEmpty()) {
                ObjectNode choice = choices.addObject().put("index", index);
                setText(choice, release(pending, true));
            }
        });
        Optional<ObjectNode> heldBack = Optional.empty();
        if (!choices.isEmpty()) {
            ObjectNode chunk = last.deepCopy();
            chunk.remove("usage");
            chunk.set("choices", choices);
            heldBack = Optional.of(chunk);
        }
        List<String> comments = tags.isEmpty() ? List.of() : List.of("x-router-tags: " + String.join(",", tags));
        return new Ending(heldBack, comments);
    }

    private JsonNode textOf(JsonNode choice) {
        return operation == Operation.COMPLETIONS
                ? choice.path("text")
                : choice.path("delta").path("content");
    }

    private void setText(ObjectNode choice, String text) {
        if (operation == Operation.COMPLETIONS) {
            choice.put("text", text);
        } else {
            JsonNode delta = choice.path("delta");
            (delta instanceof ObjectNode object ? object : choice.putObject("delta")).put("content", text);
        }
    }

    /**
     * The text of {@code pending} that can go out now, the rules applied; what cannot yet stays in {@code pending}.
     * When {@code complete}, no more text follows and all of it goes.
     */
    private String release(StringBuilder pending, boolean complete) {
        String text = pending.toString();
        var out = new StringBuilder(text.length());
        int at = 0;
        int cut = text.length();
        while (at < text.length()) {
            int open = complete ? text.length() : firstOpen(text, at);
            Optional<Found> found = first(text, at);
            if (found.isEmpty() || found.get().start() >= open) {
                cut = open;
                break;
            }
            Found match = found.get();
            if (!complete && match.open() && match.start() >= text.length() - window(match.rule())) {
                cut = match.start(); // more text could still change this match (a greedy regular expression)
                break;
            }
            out.append(text, at, match.start());
            if (match.end() == match.start()) { // an empty match changes nothing; the text goes on past it
                out.append(text.charAt(match.start()));
                at = match.start() + 1;
                continue;
            }
            PlanStep.ContentRule rule = match.rule().rule();
            switch (rule.action()) {
                case BLOCK ->
                    throw ApiException.of(
                                    ErrorCode.CONTENT_BLOCKED,
                                    match.rule().step().blockMessage())
                            .withField("step", match.rule().step().id());
                case REDACT -> out.append(REDACTED);
                case TAG -> {
                    tags.add(rule.tag());
                    out.append(text, match.start(), match.end());
                }
            }
            at = match.end();
        }
        cut = Math.max(cut, at);
        out.append(text, at, cut);
        pending.delete(0, cut);
        return out.toString();
    }

    /** A match of one rule: where, and whether the end of the text so far cut it short (it may grow). */
    private record Found(Exchange.OutputRule rule, int start, int end, boolean open) {}

    /** The first match of any rule at or after {@code from}; the earlier rule wins a tie. */
    private Optional<Found> first(String text, int from) {
        Found best = null;
        for (Exchange.OutputRule rule : rules) {
            Matcher matcher = rule.rule().pattern().matcher(text);
            if (matcher.find(from) && (best == null || matcher.start() < best.start())) {
                best = new Found(
                        rule,
                        matcher.start(),
                        matcher.end(),
                        OpenMatches.continuesPastEnd(rule.rule().pattern(), text, matcher.start()));
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The first place at or after {@code from} where a rule's match could begin but the text ends before it could
     * tell; the text's length when there is none. Only each rule's window at the end of the text is looked at.
     */
    private int firstOpen(String text, int from) {
        int open = text.length();
        for (Exchange.OutputRule rule : rules) {
            for (int p = Math.max(from, text.length() - window(rule)); p < open; p++) {
                if (OpenMatches.continuesPastEnd(rule.rule().pattern(), text, p)) {
                    open = p;
                    break;
                }
            }
        }
        return open;
    }

    private static int window(Exchange.OutputRule rule) {
        return rule.rule().streamWindow();
    }
}
