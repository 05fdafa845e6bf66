package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An MCP server of the registry: where it is, how it is reached, and how it is authorized. */
record Connector(
        String id,
        String name,
        String provider,
        String category,
        String description,
        String url,
        Transport transport,
        AuthType authType,
        Optional<String> documentationUrl,
        Optional<String> icon,
        Optional<OAuthHints> oauth,
        boolean builtIn) {
    Connector {
        requireNonNull(id, "id");
        requireNonNull(name, "name");
        requireNonNull(url, "url");
    }

    /** What the registry knows of a server's OAuth: the scopes to ask for, and whether clients may register. */
    record OAuthHints(List<String> scopes, boolean supportsDcr) {
        OAuthHints {
            scopes = List.copyOf(scopes);
        }
    }

    /**
     * The fields a gateway's {@code credentials} take for this connector, typed as the server checks them (lists
     * stay lists): what an editor builds its form from.
     */
    List<Map<String, Object>> credentialSchema() {
        return credentialSchema(authType, oauth);
    }

    /**
     * The fields a gateway's {@code credentials} take for this auth type, where {@code oauth} is what is known of the
     * server's OAuth: a client id is required unless it registers clients itself, and its scopes are the default.
     */
    static List<Map<String, Object>> credentialSchema(AuthType authType, Optional<OAuthHints> oauth) {
        var fields = new ArrayList<Map<String, Object>>();
        switch (authType) {
            case HEADERS ->
                fields.add(field(
                        "auth_headers",
                        "key_value_list",
                        true,
                        true,
                        "Headers sent with every request to the server, such as Authorization: Bearer <token>."));
            case OAUTH -> {
                boolean register = oauth.map(OAuthHints::supportsDcr).orElse(false);
                String registered = register ? " Leave it out: the server registers a client itself." : "";
                fields.add(field("client_id", "string", !register, false, "The OAuth client's id." + registered));
                fields.add(field(
                        "client_secret",
                        "string",
                        false,
                        true,
                        "The OAuth client's secret, when it " + "has one." + registered));
                var scopes = field("scopes", "string_list", false, false, "The scopes to ask for.");
                oauth.filter(o -> !o.scopes().isEmpty()).ifPresent(o -> scopes.put("default", o.scopes()));
                fields.add(scopes);
                fields.add(field(
                        "authorization_url",
                        "url",
                        false,
                        false,
                        "The authorization endpoint; found "
                                + "from the server's protected-resource metadata when left out."));
                fields.add(field(
                        "token_url",
                        "url",
                        false,
                        false,
                        "The token endpoint; found from the server's " + "metadata when left out."));
            }
            case NONE -> {}
        }
        fields.add(field(
                "passthrough_headers",
                "string_list",
                false,
                false,
                "Names of headers of an agent's " + "request that are passed on to the server."));
        return fields;
    }

    private static Map<String, Object> field(
            String name, String type, boolean required, boolean secret, String description) {
        var field = new LinkedHashMap<String, Object>();
        field.put("field", name);
        field.put("type", type);
        field.put("required", required);
        field.put("secret", secret);
        field.put("description", description);
        return field;
    }

    Map<String, Object> toJson(boolean withSchema) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", id);
        json.put("object", "connector");
        json.put("name", name);
        json.put("provider", provider);
        json.put("category", category);
        json.put("description", description);
        json.put("icon", icon.orElse(null));
        json.put("url", url);
        json.put("transport", transport.wire());
        json.put("auth_type", authType.wire());
        json.put("documentation_url", documentationUrl.orElse(null));
        json.put(
                "oauth",
                oauth.map(o -> Map.of("scopes", o.scopes(), "supports_dcr", o.supportsDcr()))
                        .orElse(null));
        json.put("built_in", builtIn);
        if (withSchema) {
            json.put("credential_schema", credentialSchema());
        }
        return json;
    }
}
