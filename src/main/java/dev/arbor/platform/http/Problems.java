package dev.arbor.platform.http;

import java.util.ArrayList;
import java.util.List;

/** Collects every problem of one validation pass, so that one response lists them all. */
public final class Problems {
    private final List<Problem> found = new ArrayList<>();

    public Problems add(ErrorCode code, String param, String message) {
        found.add(new Problem(code, param, message));
        return this;
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
