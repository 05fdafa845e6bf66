package dev.arbor.inference.steps;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.openai.StreamEdit;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * The {@code pii} steps that scan answers ({@code on: output} or {@code both}), applied to a whole answer's text or to
 * a stream as it passes, after the router's output content rules ({@code inner}). A stream's text goes on once no
 * finding could still grow into it: the last {@value #WINDOW} characters wait for the next chunk (every kind's finding
 * is shorter, a card or an IBAN with its spaces included), and so does a run of letters and digits that reaches into
 * them (a long token); a finding split across chunks is found. Chunks are never dropped or merged: a chunk's text may
 * shrink, and what is held back comes in a last chunk before {@code [DONE]}.
 */
final class PiiAnswers implements StreamEdit {
    /** How many of a stream's last characters wait: longer than any finding but a long token's. */
    static final int WINDOW = 64;

    /** Past this many characters held, text goes on even inside a token: a stream is never held whole. */
    static final int MAX_HELD = 4_096;

    private final List<PlanStep.Pii> steps;
    private final Operation operation;
    private final Optional<StreamEdit> inner;
    private final BiConsumer<PlanStep.Pii, String> counter;
    private final Set<String> tags = new LinkedHashSet<>();
    private final Map<Integer, StringBuilder> held = new LinkedHashMap<>();

    /** @param counter told each step's findings ({@code pii:<kind>}) and blocks ({@code blocked}) */
    PiiAnswers(
            List<PlanStep.Pii> steps,
            Operation operation,
            Optional<StreamEdit> inner,
            BiConsumer<PlanStep.Pii, String> counter) {
        this.steps = List.copyOf(steps);
        this.operation = requireNonNull(operation, "operation");
        this.inner = requireNonNull(inner, "inner");
        this.counter = requireNonNull(counter, "counter");
    }

    /** The tags the steps set on the answer so far ({@code pii:<kind>}). */
    Set<String> tags() {
        return Set.copyOf(tags);
    }

    /** A whole answer's text, the steps applied. */
    String whole(String text) {
        return release(new StringBuilder(text), true);
    }

    @Override
    public ObjectNode chunk(ObjectNode chunk) {
        ObjectNode edited = inner.isPresent() ? inner.get().chunk(chunk) : chunk;
        ObjectNode copy = null;
        JsonNode choices = edited.path("choices");
        for (int i = 0; i < choices.size(); i++) {
            JsonNode text = textOf(choices.get(i));
            if (!text.isTextual()) {
                continue;
            }
            StringBuilder pending =
                    held.computeIfAbsent(choices.get(i).path("index").asInt(i), k -> new StringBuilder());
            pending.append(text.textValue());
            String released = release(pending, false);
            if (pending.isEmpty() && released.equals(text.textValue())) {
                continue; // the chunk's text goes on as it came
            }
            if (copy == null) {
                copy = edited.deepCopy();
            }
            setText((ObjectNode) copy.path("choices").get(i), released);
        }
        return copy == null ? edited : copy;
    }

    @Override
    public Ending finish(ObjectNode last) {
        Ending before = inner.isPresent() ? inner.get().finish(last) : Ending.NOTHING;
        before.heldBack().ifPresent(chunk -> {
            JsonNode choices = chunk.path("choices");
            for (int i = 0; i < choices.size(); i++) {
                JsonNode text = textOf(choices.get(i));
                if (text.isTextual()) {
                    held.computeIfAbsent(choices.get(i).path("index").asInt(i), k -> new StringBuilder())
                            .append(text.textValue());
                }
            }
        });
        ArrayNode choices = Json.mapper().createArrayNode();
        held.forEach((index, pending) -> {
            if (!pending.isEmpty()) {
                setText(choices.addObject().put("index", index), release(pending, true));
            }
        });
        Optional<ObjectNode> heldBack = Optional.empty();
        if (!choices.isEmpty()) {
            ObjectNode chunk = before.heldBack().orElse(last).deepCopy();
            chunk.remove("usage");
            chunk.set("choices", choices);
            heldBack = Optional.of(chunk);
        }
        var comments = new ArrayList<>(before.comments());
        if (!tags.isEmpty()) {
            comments.add("x-router-tags: " + String.join(",", tags));
        }
        return new Ending(heldBack, comments);
    }

    /** The text of {@code pending} that can go out now, findings redacted; the rest stays. */
    private String release(StringBuilder pending, boolean complete) {
        String text = pending.toString();
        int cut = complete ? text.length() : safeCut(text);
        String out = text.substring(0, cut);
        for (PlanStep.Pii step : steps) {
            List<PiiScanner.Hit> hits = PiiScanner.find(out, step.kinds());
            if (hits.isEmpty()) {
                continue;
            }
            var kinds = new TreeSet<String>();
            hits.forEach(hit -> kinds.add(hit.kind().wire()));
            kinds.forEach(kind -> counter.accept(step, "pii:" + kind));
            switch (step.action()) {
                case BLOCK -> {
                    counter.accept(step, "blocked");
                    throw ApiException.of(
                                    ErrorCode.CONTENT_BLOCKED,
                                    "The answer was blocked: it holds personal data or a secret (found: "
                                            + String.join(", ", kinds) + ").")
                            .withField("step", step.id());
                }
                case REDACT -> out = PiiScanner.redact(out, hits);
                case TAG -> kinds.forEach(kind -> tags.add("pii:" + kind));
            }
        }
        pending.delete(0, cut);
        return out;
    }

    /**
     * Where the text may be cut: before its last {@value #WINDOW} characters, and before a run of letters and digits
     * that reaches into them (unless more than {@value #MAX_HELD} would wait).
     */
    private static int safeCut(String text) {
        int cut = Math.max(0, text.length() - WINDOW);
        int token = cut;
        while (token > 0 && !Character.isWhitespace(text.charAt(token - 1))) {
            token--;
        }
        return text.length() - token > MAX_HELD ? cut : token;
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
}
