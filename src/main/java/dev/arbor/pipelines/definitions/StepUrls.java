package dev.arbor.pipelines.definitions;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.outbound.OutboundPolicy;
import java.util.Optional;

/**
 * The HTTP Request step's {@code url} when it is written out (not a template, which is known only when the step
 * runs): one that Java's URI parser reads without a host ({@code http://127.1/}, {@code http://0x7f.1/},
 * {@code http://169.254.169.254.:80/}) or that the outbound policy cannot judge is {@code url_not_allowed} at save,
 * not a step that fails each run with "unsupported URI".
 */
public final class StepUrls {
    private static final String ACTION = "http_request";
    private static final String PARAM = "url";

    private StepUrls() {}

    /** Checks the url of an HTTP Request step's {@code params} (found at {@code prefix}); other steps have none. */
    public static void check(ActionCatalog.Action action, JsonNode params, String prefix, Problems problems) {
        JsonNode url = params.path(PARAM);
        String at = ParamPath.key(prefix, PARAM);
        if (!action.type().equals(ACTION)
                || !url.isTextual()
                || PipelineParams.RULES.knownAtRunTime(url)
                || problems.list().stream().anyMatch(p -> at.equals(p.param()))) {
            return;
        }
        Optional<String> why = OutboundPolicy.unjudgeable(url.textValue());
        why.ifPresent(reason ->
                problems.add(ErrorCode.URL_NOT_ALLOWED, at, "`" + at + "` cannot be called: " + reason + "."));
    }
}
