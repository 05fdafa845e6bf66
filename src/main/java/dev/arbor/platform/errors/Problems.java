package dev.arbor.platform.errors;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** Collects every problem of one validation pass, so that one response lists them all. */
public final class Problems {
    private final List<Problem> found = new ArrayList<>();

    public Problems add(ErrorCode code, @Nullable String param, String message) {
        found.add(new Problem(code, param, message));
        return this;
    }

    /** Adds the problems of an earlier pass, so that they are reported with this one's. */
    public Problems addAll(List<Problem> earlier) {
        found.addAll(earlier);
        return this;
    }

    /**
     * Adds {@code invalid_field} for each field of an object that is not one of {@code known}, at
     * {@code <at>.<field>}, naming the fields {@code what} has.
     */
    public Problems unknownFields(JsonNode json, Set<String> known, @Nullable String at, String what) {
        json.fieldNames().forEachRemaining(field -> {
            if (!known.contains(field)) {
                String param = ParamPath.key(at, field);
                add(
                        ErrorCode.INVALID_FIELD,
                        param,
                        "`" + param + "` is not a field of " + what + " (its fields: "
                                + String.join(", ", known.stream().sorted().toList()) + ").");
            }
        });
        return this;
    }

    /** How many problems were found so far: the mark {@link #rewordSince} starts from. */
    public int size() {
        return found.size();
    }

    /** Gives the problems at {@code param} found since the first {@code from} the message a field has for them. */
    public void rewordSince(int from, String param, Function<Problem, String> message) {
        for (int i = from; i < found.size(); i++) {
            Problem problem = found.get(i);
            if (param.equals(problem.param())) {
                found.set(i, new Problem(problem.code(), param, message.apply(problem)));
            }
        }
    }

    public boolean isEmpty() {
        return found.isEmpty();
    }

    public List<Problem> list() {
        return List.copyOf(found);
    }

    /** Ends the request with every problem found so far, if there is one. */
    public void throwIfAny() {
        if (!found.isEmpty()) {
            throw ApiException.of(found);
        }
    }
}
