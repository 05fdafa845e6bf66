package dev.arbor.platform.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ErrorCodeTest {

    @Test
    void codesAreSnakeCaseAndUniqueAcrossErrorsAndWarnings() {
        var errors = Arrays.stream(ErrorCode.values()).map(ErrorCode::code).toList();
        var warnings =
                Arrays.stream(WarningCode.values()).map(WarningCode::code).toList();
        assertThat(errors).allMatch(code -> code.matches("[a-z][a-z0-9_]*")).doesNotHaveDuplicates();
        assertThat(warnings).allMatch(code -> code.matches("[a-z][a-z0-9_]*")).doesNotHaveDuplicates();
    }

    @Test
    void theContractsSpellingsAndStatusesHold() {
        var expected = Map.ofEntries(
                Map.entry("invalid_json", 400),
                Map.entry("missing_api_key", 401),
                Map.entry("remote_access_requires_key", 403),
                Map.entry("cross_site_request", 403),
                Map.entry("not_found", 404),
                Map.entry("method_not_allowed", 405),
                Map.entry("template_version_not_found", 404),
                Map.entry("idempotency_in_progress", 409),
                Map.entry("version_conflict", 412),
                Map.entry("payload_too_large", 413),
                Map.entry("unsupported_media_type", 415),
                Map.entry("uri_too_long", 414),
                Map.entry("headers_too_large", 431),
                Map.entry("background_requires_store", 400),
                Map.entry("untrusted_variable_in_question", 400),
                Map.entry("model_crashed", 503),
                Map.entry("store_failed", 503),
                Map.entry("model_timeout", 504),
                Map.entry("internal_error", 500));
        expected.forEach((code, status) -> assertThat(
                        ErrorCode.valueOf(code.toUpperCase()).status())
                .as(code)
                .isEqualTo(status));
        assertThat(WarningCode.PER_QUESTION_SETTINGS_NOT_PORTABLE.code())
                .isEqualTo("per_question_settings_not_portable");
    }

    @Test
    void typeFollowsTheStatusAndModelFailuresSaySo() {
        assertThat(ErrorCode.INVALID_JSON.type()).isEqualTo("invalid_request_error");
        assertThat(ErrorCode.PAYLOAD_TOO_LARGE.type()).isEqualTo("invalid_request_error");
        assertThat(ErrorCode.URI_TOO_LONG.type()).isEqualTo("invalid_request_error");
        assertThat(ErrorCode.HEADERS_TOO_LARGE.type()).isEqualTo("invalid_request_error");
        assertThat(ErrorCode.INVALID_API_KEY.type()).isEqualTo("authentication_error");
        assertThat(ErrorCode.CROSS_SITE_REQUEST.type()).isEqualTo("permission_error");
        assertThat(ErrorCode.NOT_FOUND.type()).isEqualTo("not_found_error");
        assertThat(ErrorCode.VERSION_CONFLICT.type()).isEqualTo("conflict_error");
        assertThat(ErrorCode.MODEL_CRASHED.type()).isEqualTo("model_error");
        assertThat(ErrorCode.STORE_FAILED.type()).isEqualTo("api_error");
        assertThat(ErrorCode.MODEL_TIMEOUT.type()).isEqualTo("model_error");
        assertThat(ErrorCode.INTERNAL_ERROR.type()).isEqualTo("api_error");
    }

    @Test
    void paramPathsQuoteOddKeys() {
        assertThat(ParamPath.key("variables", "name")).isEqualTo("variables.name");
        assertThat(ParamPath.key("metadata", "a.b")).isEqualTo("metadata[\"a.b\"]");
        assertThat(ParamPath.key(null, "odd key")).isEqualTo("[\"odd key\"]");
        assertThat(ParamPath.index("media", 0) + ".file_id").isEqualTo("media[0].file_id");
    }
}
