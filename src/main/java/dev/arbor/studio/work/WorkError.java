package dev.arbor.studio.work;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.json.Json;

/**
 * The error the studio's background work (a decision in the background, an eval, one of its items, a fit) records
 * when it fails, as the API shows it.
 */
public final class WorkError {
    private WorkError() {}

    public static ObjectNode of(ErrorCode code, String message) {
        ObjectNode error = Json.object();
        error.put("type", code.type());
        error.put("code", code.code());
        error.put("message", message);
        return error;
    }

    /** A refusal's first problem, with the parameter it names. */
    public static ObjectNode of(ApiException refusal) {
        Problem problem = refusal.problems().getFirst();
        ObjectNode error = of(refusal.code(), problem.message());
        error.put("param", problem.param());
        return error;
    }
}
