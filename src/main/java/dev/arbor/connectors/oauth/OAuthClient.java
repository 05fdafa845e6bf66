package dev.arbor.connectors.oauth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Transport;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The client side of OAuth for MCP servers, as the MCP authorization spec lays it out: the server's protected-resource
 * metadata (RFC 9728) names its authorization server, whose metadata (RFC 8414, or OpenID discovery) gives the
 * endpoints; a client registers itself (RFC 7591) when the server allows it; codes are exchanged with PKCE (S256) and
 * tokens asked for the MCP server as resource (RFC 8707). Every call goes through the outbound client, so the SSRF
 * policy holds for every URL a metadata document names.
 */
final class OAuthClient {
    private static final Pattern RESOURCE_METADATA = Pattern.compile("resource_metadata=\"([^\"]+)\"");
    private static final Pattern SCOPE = Pattern.compile("scope=\"([^\"]*)\"");
    private static final int MAX_DOCUMENT = 256 * 1024;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Where and how a gateway's server is authorized. */
    record Server(
            String resource,
            String issuer,
            String authorizationEndpoint,
            String tokenEndpoint,
            Optional<String> registrationEndpoint,
            Set<String> authMethods,
            List<String> suggestedScopes) {
        Server {
            requireNonNull(resource, "resource");
            requireNonNull(issuer, "issuer");
            authMethods = Set.copyOf(authMethods);
            suggestedScopes = List.copyOf(suggestedScopes);
        }
    }

    /** The OAuth client this server is at an authorization server: given by an admin, or registered. */
    record Client(String id, Optional<String> secret) {
        Client {
            requireNonNull(id, "id");
            requireNonNull(secret, "secret");
        }

        @Override
        public String toString() {
            return "Client[" + id + ", secret " + (secret.isPresent() ? "set" : "none") + "]";
        }
    }

    /** What a token endpoint gave. */
    record Tokens(
            String accessToken,
            String tokenType,
            Optional<String> refreshToken,
            OptionalLong expiresIn,
            Optional<String> scope) {
        @Override
        public String toString() {
            return "Tokens[" + tokenType + ", expires in " + expiresIn + "]";
        }
    }

    /**
     * OAuth did not work out. {@code refused} when the authorization server said no in OAuth's words
     * ({@code error}, such as {@code invalid_grant}); otherwise it could not be reached or did not speak OAuth.
     */
    static final class OAuthException extends RuntimeException {
        private final boolean refused;
        private final String error;

        OAuthException(boolean refused, String error, String message) {
            super(requireNonNull(message, "message"));
            this.refused = refused;
            this.error = error;
        }

        boolean refused() {
            return refused;
        }

        String error() {
            return error;
        }

        @Override
        public String getMessage() {
            return requireNonNull(super.getMessage()); // always given
        }
    }

    private final OutboundClient http;
    private final Duration timeout;

    OAuthClient(OutboundClient http, Duration timeout) {
        this.http = requireNonNull(http, "http");
        this.timeout = requireNonNull(timeout, "timeout");
    }

    /**
     * Finds the gateway's authorization server: endpoints an admin gave win; otherwise the MCP server's
     * protected-resource metadata (from its 401's {@code WWW-Authenticate}, or the well-known addresses) and then the
     * authorization server's own metadata. A server without protected-resource metadata is its own authorization
     * server, as in the MCP spec before it.
     */
    Server discover(Gateway gateway) {
        URI mcp = URI.create(gateway.url());
        Optional<String> givenAuthorize = setting(gateway, "authorization_url");
        Optional<String> givenToken = setting(gateway, "token_url");
        if (givenAuthorize.isPresent() && givenToken.isPresent()) {
            return new Server(
                    gateway.url(),
                    origin(URI.create(givenToken.get())),
                    givenAuthorize.get(),
                    givenToken.get(),
                    Optional.empty(),
                    Set.of(),
                    List.of());
        }
        Challenge challenge = challenge(gateway, mcp);
        String resource = gateway.url();
        List<String> scopes = challenge.scopes();
        String issuer = origin(mcp);
        Optional<JsonNode> protectedResource = protectedResource(mcp, challenge.metadataUrl());
        if (protectedResource.isPresent()) {
            JsonNode prm = protectedResource.get();
            resource = checkedResource(prm.path("resource").asText(""), mcp);
            JsonNode servers = prm.path("authorization_servers");
            if (!servers.isArray() || servers.isEmpty() || !servers.get(0).isTextual()) {
                throw unreachable(
                        "The protected-resource metadata of " + host(mcp) + " names no authorization " + "server.");
            }
            issuer = servers.get(0).textValue();
            if (scopes.isEmpty()) {
                scopes = texts(prm.path("scopes_supported"));
            }
        }
        return server(issuer, resource, scopes, givenAuthorize, givenToken);
    }

    private Server server(
            String issuer,
            String resource,
            List<String> scopes,
            Optional<String> givenAuthorize,
            Optional<String> givenToken) {
        JsonNode metadata = authorizationServer(issuer);
        JsonNode challenges = metadata.path("code_challenge_methods_supported");
        if (!texts(challenges).contains("S256")) {
            throw unreachable("The authorization server " + issuer + " does not declare PKCE with S256 "
                    + "(code_challenge_methods_supported), which MCP requires.");
        }
        String authorize = givenAuthorize.orElseGet(() -> endpoint(metadata, "authorization_endpoint", issuer));
        String token = givenToken.orElseGet(() -> endpoint(metadata, "token_endpoint", issuer));
        Optional<String> registration = Optional.of(metadata.path("registration_endpoint"))
                .filter(JsonNode::isTextual)
                .map(JsonNode::textValue);
        return new Server(
                resource,
                issuer,
                authorize,
                token,
                registration,
                new LinkedHashSet<>(texts(metadata.path("token_endpoint_auth_methods_supported"))),
                scopes);
    }

    /** Registers a public client (PKCE, no secret) for the redirect URI (RFC 7591). */
    Client register(Server server, List<String> redirectUris) {
        String endpoint = server.registrationEndpoint().orElseThrow();
        var body = new LinkedHashMap<String, Object>();
        body.put("client_name", "Arbor");
        body.put("redirect_uris", redirectUris);
        body.put("grant_types", List.of("authorization_code", "refresh_token"));
        body.put("response_types", List.of("code"));
        body.put("token_endpoint_auth_method", "none");
        HttpRequest request = HttpRequest.newBuilder(URI.create(endpoint))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.write(body)))
                .build();
        JsonNode answer = exchange(request, "the client registration at " + host(URI.create(endpoint)));
        if (!answer.path("client_id").isTextual()
                || answer.path("client_id").textValue().isBlank()) {
            throw unreachable("The client registration at " + endpoint + " gave no client_id.");
        }
        return new Client(
                answer.path("client_id").textValue(),
                Optional.of(answer.path("client_secret"))
                        .filter(JsonNode::isTextual)
                        .map(JsonNode::textValue));
    }

    /** The address the browser goes to: the authorization endpoint with PKCE's challenge and the resource. */
    static String authorizationUrl(
            Server server, Client client, String redirectUri, String state, String verifier, List<String> scopes) {
        var query = new LinkedHashMap<String, String>();
        query.put("response_type", "code");
        query.put("client_id", client.id());
        query.put("redirect_uri", redirectUri);
        query.put("state", state);
        query.put("code_challenge", challengeOf(verifier));
        query.put("code_challenge_method", "S256");
        query.put("resource", server.resource());
        if (!scopes.isEmpty()) {
            query.put("scope", String.join(" ", scopes));
        }
        String endpoint = server.authorizationEndpoint();
        return endpoint + (endpoint.contains("?") ? "&" : "?") + form(query);
    }

    /** Trades an authorization code for tokens, proving PKCE with the verifier. */
    Tokens exchange(Server server, Client client, String code, String verifier, String redirectUri) {
        var form = new LinkedHashMap<String, String>();
        form.put("grant_type", "authorization_code");
        form.put("code", code);
        form.put("redirect_uri", redirectUri);
        form.put("code_verifier", verifier);
        form.put("resource", server.resource());
        return tokens(server, client, form);
    }

    /** New tokens for a refresh token; a server that rotates refresh tokens sends a new one. */
    Tokens refresh(Server server, Client client, String refreshToken) {
        var form = new LinkedHashMap<String, String>();
        form.put("grant_type", "refresh_token");
        form.put("refresh_token", refreshToken);
        form.put("resource", server.resource());
        return tokens(server, client, form);
    }

    /** A random PKCE verifier or state: 32 bytes, base64url. */
    static String randomToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    static String challengeOf(String verifier) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private Tokens tokens(Server server, Client client, Map<String, String> form) {
        var request = HttpRequest.newBuilder(URI.create(server.tokenEndpoint()))
                .timeout(timeout)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json");
        // client_secret_basic unless the server lists only client_secret_post (RFC 8414's default is basic)
        boolean post = server.authMethods().contains("client_secret_post")
                && !server.authMethods().contains("client_secret_basic");
        if (client.secret().isPresent() && !post) {
            String pair = encode(client.id()) + ":" + encode(client.secret().get());
            request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(UTF_8)));
        } else {
            form.put("client_id", client.id());
            client.secret().ifPresent(secret -> form.put("client_secret", secret));
        }
        request.POST(HttpRequest.BodyPublishers.ofString(form(form)));
        JsonNode answer = exchange(request.build(), "the token endpoint of " + server.issuer());
        if (!answer.path("access_token").isTextual()
                || answer.path("access_token").textValue().isEmpty()) {
            throw unreachable("The token endpoint of " + server.issuer() + " gave no access_token.");
        }
        JsonNode expiresIn = answer.path("expires_in");
        return new Tokens(
                answer.path("access_token").textValue(),
                answer.path("token_type").asText("Bearer"),
                Optional.of(answer.path("refresh_token"))
                        .filter(JsonNode::isTextual)
                        .map(JsonNode::textValue),
                expiresIn.canConvertToLong() && expiresIn.asLong() > 0
                        ? OptionalLong.of(expiresIn.asLong())
                        : OptionalLong.empty(),
                Optional.of(answer.path("scope")).filter(JsonNode::isTextual).map(JsonNode::textValue));
    }

    /** A JSON answer of an OAuth endpoint; an OAuth error in it is a refusal, anything else unexpected a failure. */
    private JsonNode exchange(HttpRequest request, String what) {
        Answer answer = send(request, what);
        Optional<JsonNode> json = answer.json();
        if (answer.status() / 100 == 2 && json.filter(JsonNode::isObject).isPresent()) {
            return json.get();
        }
        if (json.map(j -> j.path("error").isTextual()).orElse(false)) {
            String error = json.get().path("error").textValue();
            String description = json.get().path("error_description").asText("");
            throw new OAuthException(
                    true,
                    error,
                    capitalized(what) + " refused: " + error + (description.isEmpty() ? "" : " (" + description + ")"));
        }
        throw unreachable(capitalized(what) + " answered " + answer.status() + " without an OAuth answer.");
    }

    /** What an MCP server says when asked without a token: where its metadata is, and the scopes it wants. */
    private record Challenge(Optional<String> metadataUrl, List<String> scopes) {}

    private Challenge challenge(Gateway gateway, URI mcp) {
        var request = HttpRequest.newBuilder(mcp).timeout(timeout);
        if (gateway.transport() == Transport.SSE) {
            request.header("Accept", "text/event-stream").GET();
        } else {
            request.header("Accept", "application/json, text/event-stream")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,"
                            + "\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                            + "\"clientInfo\":{\"name\":\"arbor\",\"version\":\"1\"}}}"));
        }
        HttpResponse<InputStream> response = open(request.build(), "the MCP server at " + host(mcp));
        try (InputStream _ = response.body()) {
            String header = response.statusCode() == 401 || response.statusCode() == 403
                    ? response.headers().allValues("www-authenticate").stream().collect(Collectors.joining(", "))
                    : "";
            Optional<String> metadata = match(RESOURCE_METADATA, header);
            List<String> scopes = match(SCOPE, header)
                    .map(s -> List.of(s.trim().split("\\s+")))
                    .filter(s -> !s.getFirst().isEmpty())
                    .orElse(List.of());
            return new Challenge(metadata, scopes);
        } catch (IOException e) {
            return new Challenge(Optional.empty(), List.of());
        }
    }

    /** RFC 9728: the address from the challenge, else the well-known one with the MCP path, else at the root. */
    private Optional<JsonNode> protectedResource(URI mcp, Optional<String> given) {
        var candidates = new ArrayList<String>();
        given.ifPresent(candidates::add);
        String path = mcp.getRawPath() == null || mcp.getRawPath().equals("/") ? "" : mcp.getRawPath();
        if (!path.isEmpty()) {
            candidates.add(origin(mcp) + "/.well-known/oauth-protected-resource" + path);
        }
        candidates.add(origin(mcp) + "/.well-known/oauth-protected-resource");
        for (String candidate : candidates) {
            Optional<JsonNode> document = document(candidate);
            if (document.isPresent()) {
                return document;
            }
        }
        return Optional.empty();
    }

    /** RFC 8414 with the issuer's path inserted, OpenID discovery both ways, then the issuer-suffixed form. */
    private JsonNode authorizationServer(String issuer) {
        URI uri = URI.create(issuer);
        String origin = origin(uri);
        String path = uri.getRawPath() == null || uri.getRawPath().equals("/") ? "" : uri.getRawPath();
        var candidates = new LinkedHashSet<String>();
        candidates.add(origin + "/.well-known/oauth-authorization-server" + path);
        candidates.add(origin + "/.well-known/openid-configuration" + path);
        candidates.add(origin + path + "/.well-known/openid-configuration");
        candidates.add(origin + path + "/.well-known/oauth-authorization-server");
        for (String candidate : candidates) {
            Optional<JsonNode> document = document(candidate);
            if (document.isPresent()) {
                String declared = document.get().path("issuer").asText("");
                if (!trimmed(declared).equals(trimmed(issuer))) {
                    throw unreachable(
                            "The metadata at " + candidate + " is for issuer '" + declared + "', not " + issuer + ".");
                }
                return document.get();
            }
        }
        throw unreachable("No authorization server metadata found for " + issuer + " (tried "
                + String.join(", ", candidates) + ").");
    }

    private Optional<JsonNode> document(String url) {
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(URI.create(url))
                    .timeout(timeout)
                    .header("Accept", "application/json")
                    .GET()
                    .build();
        } catch (IllegalArgumentException e) {
            throw unreachable("'" + url + "' is not a URL.");
        }
        Answer answer = send(request, "metadata at " + url);
        return answer.status() == 200 ? answer.json().filter(JsonNode::isObject) : Optional.empty();
    }

    private record Answer(int status, Optional<JsonNode> json) {}

    private Answer send(HttpRequest request, String what) {
        HttpResponse<InputStream> response = open(request, what);
        try (InputStream body = response.body()) {
            byte[] bytes = body.readNBytes(MAX_DOCUMENT + 1);
            if (bytes.length > MAX_DOCUMENT) {
                throw unreachable("The answer of " + what + " is larger than " + MAX_DOCUMENT + " bytes.");
            }
            Optional<JsonNode> json;
            try {
                json = Optional.ofNullable(Json.read(bytes));
            } catch (RuntimeException e) {
                json = Optional.empty();
            }
            return new Answer(response.statusCode(), json);
        } catch (IOException e) {
            throw unreachable("Reading " + what + " failed: " + e.getMessage());
        }
    }

    private HttpResponse<InputStream> open(HttpRequest request, String what) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (OutboundRefusedException e) {
            throw unreachable("Calling " + what + " is refused: " + e.getMessage());
        } catch (java.net.http.HttpTimeoutException e) {
            throw new OAuthException(
                    false, "timeout", capitalized(what) + " did not answer within " + timeout.toSeconds() + " s.");
        } catch (IOException e) {
            throw unreachable(capitalized(what) + " cannot be reached: "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unreachable("Interrupted while calling " + what + ".");
        }
    }

    /**
     * The resource the metadata is for must be the MCP server itself (the same origin, and a path the server's is
     * under): tokens are asked for it, so metadata naming another resource would send them elsewhere.
     */
    private static String checkedResource(String resource, URI mcp) {
        if (resource.isEmpty()) {
            return mcp.toString();
        }
        URI given;
        try {
            given = URI.create(resource);
        } catch (IllegalArgumentException e) {
            throw unreachable("The protected-resource metadata names '" + resource + "', not a URL.");
        }
        String path = given.getRawPath() == null ? "" : trimmed(given.getRawPath());
        String mcpPath = mcp.getRawPath() == null ? "" : mcp.getRawPath();
        if (given.getScheme() == null
                || given.getHost() == null
                || !origin(given).equalsIgnoreCase(origin(mcp))
                || !(mcpPath.equals(path) || mcpPath.startsWith(path + "/") || path.isEmpty())) {
            throw unreachable("The protected-resource metadata is for " + resource + ", not for the gateway's "
                    + "server " + mcp + ".");
        }
        return resource;
    }

    private static String endpoint(JsonNode metadata, String field, String issuer) {
        JsonNode value = metadata.path(field);
        if (!value.isTextual()
                || !(value.textValue().startsWith("https://")
                        || value.textValue().startsWith("http://"))) {
            throw unreachable("The metadata of " + issuer + " has no " + field + ".");
        }
        return value.textValue();
    }

    private static Optional<String> setting(Gateway gateway, String field) {
        return Optional.of(gateway.settings().path(field))
                .filter(JsonNode::isTextual)
                .map(JsonNode::textValue);
    }

    private static List<String> texts(JsonNode array) {
        var texts = new ArrayList<String>();
        array.forEach(value -> {
            if (value.isTextual()) {
                texts.add(value.textValue());
            }
        });
        return texts;
    }

    private static Optional<String> match(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    private static String capitalized(String what) {
        return what.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + what.substring(1);
    }

    private static String origin(URI uri) {
        return uri.getScheme() + "://" + uri.getRawAuthority();
    }

    private static String host(URI uri) {
        return uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
    }

    private static String trimmed(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static String form(Map<String, String> values) {
        return values.entrySet().stream()
                .map(e -> encode(e.getKey()) + "=" + encode(e.getValue()))
                .collect(Collectors.joining("&"));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, UTF_8);
    }

    private static OAuthException unreachable(String message) {
        return new OAuthException(false, "server_error", message);
    }
}
