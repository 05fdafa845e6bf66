package dev.arbor.platform.errors;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Non-fatal problems returned in {@code warnings} (or the {@code x-studio-warning} header on wire formats). */
public enum WarningCode {
    UNKNOWN_FIELD_IGNORED,
    STORE_DOWNGRADED,
    STATE_MAY_BE_TRUNCATED,
    TEMPLATE_ARCHIVED,
    NO_MODEL_LOADED,
    PER_QUESTION_SETTINGS_NOT_PORTABLE,
    HISTORY_WRITE_FAILED,
    VARIABLE_UNREFERENCED,
    DEFAULT_MODEL_INCOMPATIBLE,
    METADATA_IGNORED,
    STORE_IGNORED,
    TEMPLATE_MISMATCH,
    ROUTERS_DEACTIVATED,
    ROUTER_INCOMPLETE,
    DELEGATE_TARGET_INACTIVE,
    OPTIONS_UNDESCRIBED;

    @JsonValue
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return code();
    }
}
