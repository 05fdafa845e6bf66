package dev.arbor.connectors.oauth;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of gateways' OAuth, for the OpenAPI document. */
final class OAuthShapes {
    private OAuthShapes() {}

    static final Schema AUTHORIZATION = object().required("object", oneOf("connector.oauth.authorization"))
            .required("gateway_id", string())
            .required("authorization_url", string())
            .required("state", string())
            .required("expires_in", integer())
            .required("expires_at", timestamp());
    static final Schema OAUTH_STATUS = named(
            "OAuthStatus",
            object().required("object", oneOf("connector.oauth.status"))
                    .required("gateway_id", string())
                    .required("status", string())
                    .required("configured", bool())
                    .optional("authorization", oneOf("shared", "per_user"))
                    .required("authorization_server", nullable(string()))
                    .required("client", nullable(string()))
                    .required("scopes", arrayOf(string()))
                    .required("expires_at", nullable(timestamp()))
                    .required("refreshable", bool())
                    .required("authorized_at", nullable(timestamp()))
                    .required("authorized_by", nullable(string())));
    static final Schema ANY_OBJECT = mapOf(any());
}
