package dev.arbor.studio.feedback;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of feedback, for the OpenAPI document. */
final class FeedbackShapes {
    private FeedbackShapes() {}

    static final Schema FEEDBACK_IN = object().required("expected", mapOf(any("The right answer, as a label")))
            .required("rating", nullable(integer(-1, 1)))
            .optional("note", nullable(string(2000)));
    static final Schema FEEDBACK = named(
            "Feedback",
            resource("feedback")
                    .required("decision_id", string())
                    .required("question", string())
                    .required("expected", nullable(any()))
                    .required("predicted", nullable(any()))
                    .required("correct", nullable(bool()))
                    .required("rating", nullable(integer(-1, 1)))
                    .required("note", nullable(string()))
                    .required("actor", string())
                    .required("created_at", timestamp())
                    .required("updated_at", timestamp()));
    static final Schema FEEDBACK_DELETED = Schema.deleted("feedback");
}
