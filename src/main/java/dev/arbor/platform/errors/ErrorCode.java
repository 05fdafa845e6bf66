package dev.arbor.platform.errors;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The one registry of error codes and their HTTP status. Codes are part of the contract: once released, a code keeps
 * its spelling and its status forever, so add new ones, never rename.
 */
public enum ErrorCode {
    // 400: change the request
    INVALID_JSON(400),
    INVALID_FIELD(400),
    MISSING_FIELD(400),
    READ_ONLY_FIELD(400),
    INVALID_PARAMETER(400),
    INVALID_REFERENCE(400),
    INVALID_METADATA(400),
    FILTER_REQUIRED(400),
    CONFIRMATION_REQUIRED(400),
    SEARCH_UNAVAILABLE(400),
    TOO_MANY_ITEMS(400),
    BACKGROUND_REQUIRES_STORE(400),
    INVALID_EXPECTED(400),
    NO_LABELLED_ITEMS(400),
    MISSING_VARIABLE(400),
    UNKNOWN_VARIABLE(400),
    INVALID_VARIABLE(400),
    VARIABLES_NEED_TEMPLATE(400),
    STATE_REQUIRED(400),
    STATE_NOT_ALLOWED(400),
    EMPTY_STATE(400),
    UNKNOWN_QUESTION(400),
    QUESTION_CONFLICT(400),
    EXTENSION_NOT_ALLOWED(400),
    OPTIONS_NOT_EXTENSIBLE(400),
    OPTION_CONFLICT(400),
    SKIP_NOT_ALLOWED(400),
    TOO_MANY_EXTRA_QUESTIONS(400),
    NO_QUESTIONS(400),
    REQUIRES_TEMPLATE(400),
    MODEL_INCOMPATIBLE(400),
    MODALITY_NOT_ALLOWED(400),
    MODEL_REJECTED_INPUT(400),
    MODEL_CAPABILITY_UNSUPPORTED(400),
    UNDECLARED_VARIABLE(400),
    PLACEHOLDER_NOT_ALLOWED(400),
    MEDIA_VARIABLE_IN_TEXT(400),
    MODALITY_NOT_DECLARED(400),
    UNTRUSTED_VARIABLE_IN_QUESTION(400),
    INVALID_DEFINITION(400),
    UNKNOWN_REFERENCE(400),
    INVALID_OAUTH_STATE(400),
    OAUTH_REJECTED(400),
    INCOMPLETE_BODY(400),
    UNREADABLE_DELIVERY(400),
    INVALID_KUBECONFIG(400),
    CLUSTER_UNREACHABLE(400),
    CLUSTER_UNAUTHORIZED(400),
    CLUSTER_FORBIDDEN(400),
    MODEL_FORMAT_UNSUPPORTED(400),
    URL_NOT_ALLOWED(400),
    CONTENT_BLOCKED(400),
    PARAM_BLOCKED(400),
    ROUTER_STEP_FAILED(400),
    ROUTER_LOOP(400),
    DELEGATION_TOO_DEEP(400),

    // 401, 403: fix the key, the origin or the address
    MISSING_API_KEY(401),
    INVALID_API_KEY(401),
    INVALID_SIGNATURE(401),
    REMOTE_ACCESS_REQUIRES_KEY(403),
    CROSS_SITE_REQUEST(403),
    HOST_NOT_ALLOWED(403),
    TEMPLATE_READ_ONLY(403),
    ADMIN_REQUIRED(403),
    INFERENCE_KEY_NOT_ALLOWED(403),
    APPROVAL_FORBIDDEN(403),
    PROJECT_FORBIDDEN(403),

    // 404, 405
    NOT_FOUND(404),
    METHOD_NOT_ALLOWED(405),
    DECISION_NOT_FOUND(404),
    TEMPLATE_NOT_FOUND(404),
    TEMPLATE_VERSION_NOT_FOUND(404),
    ALIAS_NOT_FOUND(404),
    EXAMPLE_NOT_FOUND(404),
    FEEDBACK_NOT_FOUND(404),
    FILE_NOT_FOUND(404),
    MODEL_NOT_FOUND(404),
    PROJECT_NOT_FOUND(404),
    TOKEN_NOT_FOUND(404),
    KEY_NOT_FOUND(404),
    PIPELINE_NOT_FOUND(404),
    RUN_NOT_FOUND(404),
    APPROVAL_NOT_FOUND(404),
    SCHEDULE_NOT_FOUND(404),
    CHANNEL_NOT_FOUND(404),
    CREDENTIAL_NOT_FOUND(404),
    EVENT_CONNECTION_NOT_FOUND(404),
    TRIGGER_NOT_FOUND(404),
    CONNECTOR_NOT_FOUND(404),
    GATEWAY_NOT_FOUND(404),
    CONNECTION_NOT_FOUND(404),
    HOOK_NOT_FOUND(404),
    DELIVERY_NOT_FOUND(404),
    ROUTER_NOT_FOUND(404),
    CLUSTER_NOT_FOUND(404),
    EVAL_NOT_FOUND(404),
    FIT_NOT_FOUND(404),
    DEPLOYMENT_NOT_FOUND(404),
    AUDIT_ENTRY_NOT_FOUND(404),

    // 409, 412
    TEMPLATE_EXISTS(409),
    TEMPLATE_ID_RESERVED(409),
    TEMPLATE_ARCHIVED(409),
    EXAMPLE_EXISTS(409),
    MODEL_NOT_LOADED(409),
    MODEL_NOT_DOWNLOADED(409),
    DECISION_FINISHED(409),
    INPUT_UNAVAILABLE(409),
    IDEMPOTENCY_IN_PROGRESS(409),
    IDEMPOTENCY_KEY_REUSED(409),
    IDEMPOTENCY_ANSWER_LOST(409),
    PROJECT_EXISTS(409),
    MODEL_EXISTS(409),
    PIPELINE_EXISTS(409),
    RUN_FINISHED(409),
    RUN_NOT_FAILED(409),
    PIPELINE_PAUSED(409),
    APPROVAL_ANSWERED(409),
    RUN_NOT_FINISHED(409),
    REPLAY_STEP_NOT_FOUND(409),
    CHANNEL_NOT_CONFIGURED(409),
    CREDENTIAL_EXISTS(409),
    CONNECTOR_EXISTS(409),
    CONNECTOR_BUILT_IN(409),
    GATEWAY_DISABLED(409),
    GATEWAY_OUT_OF_SCOPE(409),
    OAUTH_NOT_REQUIRED(409),
    OAUTH_REQUIRED(409),
    OAUTH_CLIENT_REQUIRED(409),
    MODEL_BUILT_IN(409),
    DOWNLOADS_DISABLED(409),
    DELIVERY_NOT_REPLAYABLE(409),
    ROUTER_EXISTS(409),
    IN_USE(409),
    CLUSTER_EXISTS(409),
    CLUSTER_BUILT_IN(409),
    CLUSTER_IN_USE(409),
    WORKLOAD_GONE(409),
    EVAL_FINISHED(409),
    EVAL_NOT_COMPLETED(409),
    EVAL_HAS_NO_TEMPLATE(409),
    TOO_FEW_LABELS(409),
    FIT_FINISHED(409),
    DEPLOYMENT_EXISTS(409),
    RESOURCES_UNAVAILABLE(409),
    VERSION_CONFLICT(412),

    // 408: the body came too slowly; send it again, faster
    BODY_TOO_SLOW(408),

    // 413, 414, 415, 431: send less, or another kind
    PAYLOAD_TOO_LARGE(413),
    URI_TOO_LONG(414),
    UNSUPPORTED_MEDIA_TYPE(415),
    HEADERS_TOO_LARGE(431),

    // 429: slow down
    RATE_LIMITED(429),

    // 5xx: retry after a pause
    INTERNAL_ERROR(500),
    UPSTREAM_UNAVAILABLE(502),
    UPSTREAM_INVALID_RESPONSE(502),
    MODEL_LOAD_FAILED(503),
    MODEL_EJECTED(503),
    MODEL_CRASHED(503),
    MODEL_HUB_UNAVAILABLE(503),
    HISTORY_UNAVAILABLE(503),
    DATABASE_UNAVAILABLE(503),
    STORE_FAILED(503),
    SERVER_BUSY(503),
    MODEL_NOT_DEPLOYED(503),
    DEPLOYMENT_ON_OTHER_SERVER(503),
    DEPLOYMENT_NOT_READY(503),
    UPSTREAM_TIMEOUT(504),
    MODEL_LOAD_TIMEOUT(504),
    MODEL_TIMEOUT(504);

    private final int status;
    private final String code;

    ErrorCode(int status) {
        this.status = status;
        this.code = name().toLowerCase(Locale.ROOT);
    }

    public int status() {
        return status;
    }

    /** The wire spelling, e.g. {@code invalid_json}. */
    @JsonValue
    public String code() {
        return code;
    }

    /** The envelope's {@code type}: derived from the status; model failures say so. */
    public String type() {
        return switch (status) {
            case 400, 408, 413, 414, 415, 431 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404, 405 -> "not_found_error";
            case 409, 412 -> "conflict_error";
            case 429 -> "rate_limit_error";
            case 502 -> "upstream_error";
            case 504 -> code.startsWith("model_") ? "model_error" : "upstream_error";
            case 503 -> code.startsWith("model_") ? "model_error" : "api_error";
            default -> "api_error";
        };
    }

    @Override
    public String toString() {
        return code;
    }
}
