package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

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
    List<CredentialField> credentialSchema() {
        return credentialSchema(authType, oauth);
    }

    /**
     * The fields a gateway's {@code credentials} take for this auth type, where {@code oauth} is what is known of the
     * server's OAuth: a client id is required unless it registers clients itself, and its scopes are the default.
     */
    static List<CredentialField> credentialSchema(AuthType authType, Optional<OAuthHints> oauth) {
        var fields = new ArrayList<CredentialField>();
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
                fields.add(new CredentialField(
                        "scopes",
                        "string_list",
                        false,
                        false,
                        "The scopes to ask for.",
                        oauth.map(OAuthHints::scopes).filter(s -> !s.isEmpty()).orElse(null),
                        null));
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
                fields.add(new CredentialField(
                        "authorization",
                        "select",
                        false,
                        false,
                        "shared (the default: one authorization every agent uses) or per_user (each caller "
                                + "authorizes the server for itself and its calls carry its own token).",
                        null,
                        List.of(GatewayCredentials.SHARED, GatewayCredentials.PER_USER)));
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

    private static CredentialField field(
            String name, String type, boolean required, boolean secret, String description) {
        return new CredentialField(name, type, required, secret, description, null, null);
    }

    /** One field of a credential schema; {@code defaultValue} only where there is one. */
    record CredentialField(
            String field,
            String type,
            boolean required,
            boolean secret,
            String description,

            @JsonProperty("default") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            List<String> defaultValue,

            // the values a select field takes
            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            List<String> options) {}

    /** The entry as the API shows it; its credential schema only where asked for. */
    View view(boolean withSchema) {
        return new View(
                id,
                "connector",
                name,
                provider,
                category,
                description,
                icon.orElse(null),
                url,
                transport.wire(),
                authType.wire(),
                documentationUrl.orElse(null),
                oauth.map(o -> new OAuthView(o.scopes(), o.supportsDcr())).orElse(null),
                builtIn,
                withSchema ? credentialSchema() : null);
    }

    record OAuthView(
            List<String> scopes,
            @JsonProperty("supports_dcr") boolean supportsDcr) {}

    record View(
            String id,
            String object,
            String name,
            String provider,
            String category,
            String description,
            @Nullable String icon,
            String url,
            String transport,
            @JsonProperty("auth_type") String authType,
            @JsonProperty("documentation_url") @Nullable String documentationUrl,
            @Nullable OAuthView oauth,
            @JsonProperty("built_in") boolean builtIn,

            @JsonProperty("credential_schema") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            List<CredentialField> credentialSchema) {}
}
