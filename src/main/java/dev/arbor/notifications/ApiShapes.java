package dev.arbor.notifications;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;

import dev.arbor.platform.http.Schema;

/** The shapes of notification channels, for the OpenAPI document. */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema CHANNEL = named(
            "NotificationChannel",
            object().required("channel", oneOf("email", "team_chat_1", "team_chat_2"))
                    .required("object", oneOf("notification_channel"))
                    .required("configured", bool())
                    .optional("settings", Schema.mapOf(any())));
    static final Schema CHANNELS = object().required("object", oneOf("list")).required("data", arrayOf(CHANNEL));
    static final Schema DELETED = object().required("object", oneOf("notification_channel.deleted"))
            .required("channel", string())
            .required("deleted", bool());
    static final Schema TEST_RESULT = object().required("object", oneOf("notification_channel.test"))
            .required("channel", string())
            .required("delivered", bool())
            .optional("error", object().required("code", string()).required("message", string()));
}
