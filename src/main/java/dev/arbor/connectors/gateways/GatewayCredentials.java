package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A gateway's {@code credentials}, checked against its auth type's schema ({@link Connector#credentialSchema}) and
 * split into what may be shown (client id, scopes, header and variable names) and what is sealed (header values,
 * client secret, a local server's environment variables).
 */
final class GatewayCredentials {
    private static final Pattern HEADER = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}");
    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,99}");
    private static final Map<AuthType, Set<String>> FIELDS = Map.of(
            AuthType.NONE, Set.of("passthrough_headers"),
            AuthType.HEADERS, Set.of("auth_headers", "passthrough_headers"),
            AuthType.OAUTH,
                    Set.of(
                            "client_id",
                            "client_secret",
                            "scopes",
                            "authorization_url",
                            "token_url",
                            "authorization",
                            "passthrough_headers"));
    /** {@code credentials.authorization}: one authorization shared by every caller, or each caller's own. */
    static final String SHARED = "shared";

    static final String PER_USER = "per_user";

    /** The shown part and the sealed part. */
    record Split(ObjectNode settings, Optional<ObjectNode> secret) {}

    private GatewayCredentials() {}

    /**
     * @param clientRegisters whether the server registers OAuth clients itself, so that a client id may be left out
     * @param local whether the server is a local command ({@code stdio}), whose credentials are its environment
     */
    static Split read(JsonNode credentials, AuthType auth, boolean clientRegisters, boolean local, Problems problems) {
        ObjectNode settings = Json.object();
        ObjectNode secret = Json.object();
        if (credentials.isMissingNode() || credentials.isNull()) {
            credentials = Json.object();
        }
        if (!credentials.isObject()) {
            problems.add(ErrorCode.INVALID_FIELD, "credentials", "`credentials` must be an object.");
            return new Split(settings, Optional.empty());
        }
        if (local) {
            problems.unknownFields(credentials, Set.of("env"), "credentials", "the credentials of a stdio server");
            if (!credentials.path("env").isMissingNode()
                    && !credentials.path("env").isNull()) {
                keyValues(
                        credentials.path("env"),
                        "credentials.env",
                        VARIABLE,
                        "an environment variable name",
                        "env",
                        "env_keys",
                        settings,
                        secret,
                        problems);
            }
            return new Split(settings, secret.isEmpty() ? Optional.empty() : Optional.of(secret));
        }
        problems.unknownFields(
                credentials,
                requireNonNull(FIELDS.get(auth)),
                "credentials",
                "the credentials of auth_type " + auth.wire());
        headerNames(credentials.path("passthrough_headers"), "credentials.passthrough_headers", problems)
                .ifPresent(names -> settings.set("passthrough_headers", names));
        switch (auth) {
            case HEADERS -> authHeaders(credentials.path("auth_headers"), settings, secret, problems);
            case OAUTH -> oauth(credentials, clientRegisters, settings, secret, problems);
            case NONE -> {}
        }
        return new Split(settings, secret.isEmpty() ? Optional.empty() : Optional.of(secret));
    }

    private static void authHeaders(JsonNode headers, ObjectNode settings, ObjectNode secret, Problems problems) {
        String at = "credentials.auth_headers";
        if (headers.isMissingNode() || headers.isNull()) {
            problems.add(
                    ErrorCode.MISSING_FIELD,
                    at,
                    "`" + at + "` is required: the headers sent to the server, "
                            + "as [{\"key\": \"Authorization\", \"value\": \"Bearer ...\"}].");
            return;
        }
        keyValues(headers, at, HEADER, "a header name", "auth_headers", "auth_header_keys", settings, secret, problems);
    }

    /** A list of {key, value}: the keys shown (in {@code shownField}), the pairs sealed (in {@code field}). */
    private static void keyValues(
            JsonNode pairs,
            String at,
            Pattern keys,
            String keyIs,
            String field,
            String shownField,
            ObjectNode settings,
            ObjectNode secret,
            Problems problems) {
        if (!pairs.isArray() || pairs.isEmpty() || pairs.size() > 50) {
            problems.add(ErrorCode.INVALID_FIELD, at, "`" + at + "` must be a list of 1 to 50 {key, value}.");
            return;
        }
        ArrayNode shown = settings.putArray(shownField);
        ArrayNode all = secret.putArray(field);
        for (int i = 0; i < pairs.size(); i++) {
            JsonNode pair = pairs.get(i);
            String key = pair.path("key").asText("");
            JsonNode value = pair.path("value");
            if (!keys.matcher(key).matches()
                    || !value.isTextual()
                    || value.textValue().isEmpty()
                    || value.textValue().length() > 8192) {
                String item = ParamPath.index(at, i);
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        item,
                        "`" + item + "` must be {key: " + keyIs + ", value: a " + "non-empty string}.");
                continue;
            }
            shown.add(key);
            all.addObject().put("key", key).put("value", value.textValue());
        }
    }

    private static void oauth(
            JsonNode credentials, boolean clientRegisters, ObjectNode settings, ObjectNode secret, Problems problems) {
        Optional<String> clientId = text(credentials, "client_id", problems);
        Optional<String> clientSecret = text(credentials, "client_secret", problems);
        if (clientId.isEmpty() && !clientRegisters) {
            problems.add(
                    ErrorCode.MISSING_FIELD,
                    "credentials.client_id",
                    "`credentials.client_id` is required: " + "this server does not register clients itself.");
        }
        if (clientSecret.isPresent() && clientId.isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "credentials.client_secret",
                    "`credentials.client_secret` comes " + "with a client_id.");
        }
        clientId.ifPresent(id -> settings.put("client_id", id));
        clientSecret.ifPresent(s -> secret.put("client_secret", s));
        JsonNode scopes = credentials.path("scopes");
        if (!scopes.isMissingNode() && !scopes.isNull()) {
            boolean ok = scopes.isArray() && scopes.size() <= 50;
            for (JsonNode scope : scopes) {
                ok &= scope.isTextual()
                        && !scope.textValue().isBlank()
                        && !scope.textValue().contains(" ");
            }
            if (ok) {
                settings.set("scopes", scopes);
            } else {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        "credentials.scopes",
                        "`credentials.scopes` must be a list " + "of scopes, each without spaces.");
            }
        }
        text(credentials, "authorization", problems).ifPresent(mode -> {
            if (mode.equals(SHARED) || mode.equals(PER_USER)) {
                settings.put("authorization", mode);
            } else {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        "credentials.authorization",
                        "`credentials.authorization` must be " + SHARED + " (one authorization every agent uses) or "
                                + PER_USER + " (each caller authorizes the server for itself).");
            }
        });
        for (String url : new String[] {"authorization_url", "token_url"}) {
            text(credentials, url, problems).ifPresent(value -> {
                if (value.startsWith("https://") || value.startsWith("http://")) {
                    settings.put(url, value);
                } else {
                    problems.add(
                            ErrorCode.INVALID_FIELD,
                            "credentials." + url,
                            "`credentials." + url + "` must be an http(s) URL.");
                }
            });
        }
    }

    private static Optional<ArrayNode> headerNames(JsonNode names, String at, Problems problems) {
        if (names.isMissingNode() || names.isNull()) {
            return Optional.empty();
        }
        boolean ok = names.isArray() && names.size() <= 50;
        for (JsonNode name : names) {
            ok &= name.isTextual() && HEADER.matcher(name.textValue()).matches();
        }
        if (!ok) {
            problems.add(ErrorCode.INVALID_FIELD, at, "`" + at + "` must be a list of header names.");
            return Optional.empty();
        }
        return Optional.of((ArrayNode) names);
    }

    private static Optional<String> text(JsonNode credentials, String field, Problems problems) {
        JsonNode value = credentials.path(field);
        if (value.isMissingNode()
                || value.isNull()
                || (value.isTextual() && value.textValue().isBlank())) {
            return Optional.empty();
        }
        if (!value.isTextual() || value.textValue().length() > 2048) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "credentials." + field,
                    "`credentials." + field + "` must be a " + "string.");
            return Optional.empty();
        }
        return Optional.of(value.textValue());
    }
}
