package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** What tests compare an answer's problems by. */
public final class ProblemCodes {
    private ProblemCodes() {}

    /** Each problem of a list (errors, warnings, an error's details) as {@code "code param"}, in order. */
    public static List<String> of(JsonNode problems) {
        var found = new ArrayList<String>();
        problems.forEach(
                p -> found.add(p.path("code").asText() + " " + p.path("param").asText()));
        return found;
    }
}
