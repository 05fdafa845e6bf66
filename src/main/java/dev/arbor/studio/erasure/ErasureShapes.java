package dev.arbor.studio.erasure;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;

import dev.arbor.platform.http.Schema;

/** The shapes of the bulk deletes and redactions and of one decision's redaction, for the OpenAPI document. */
final class ErasureShapes {
    private static final Schema COUNT = integer(0, Long.MAX_VALUE);

    private static final Schema FILTER = mapOf(
            any("A filter of the decision list (a list means any of), or " + "sensitive_hash: {variable: value}"));
    static final Schema BULK_DELETE = object().optional("filter", nullable(FILTER))
            .optional("all", nullable(bool()))
            .optional("dry_run", nullable(bool()))
            .optional("include_pinned", nullable(bool()));
    static final Schema BULK_REDACT = object().optional("filter", nullable(FILTER))
            .optional("all", nullable(bool()))
            .optional("dry_run", nullable(bool()))
            .optional("include_pinned", nullable(bool()))
            .required("fields", arrayOf(string()));
    static final Schema REDACT = object().required("fields", arrayOf(string()));
    static final Schema BULK_DELETED = object().required("object", oneOf("decision.bulk_delete"))
            .required("matched", COUNT)
            .required("deleted", COUNT)
            .required("skipped_pinned", COUNT)
            .required("dry_run", bool());
    static final Schema BULK_REDACTED = object().required("object", oneOf("decision.bulk_redact"))
            .required("matched", COUNT)
            .required("redacted", COUNT)
            .required("skipped_pinned", COUNT)
            .required("dry_run", bool());

    private ErasureShapes() {}
}
