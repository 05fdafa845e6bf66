package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.nimbusds.oauth2.sdk.TokenRequest;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.token.OAuth2TokenCallback;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real MCP server (the MCP Java SDK's servlet transport on Jetty, on 127.0.0.1) that only answers requests with a
 * bearer token from a real OAuth authorization server (mock-oauth2-server, in-process): tokens are RS256 JWTs checked
 * against its JWKS, for this server as audience (RFC 8707). A request without one is 401 with the address of the
 * protected-resource metadata (RFC 9728). Its tools: {@code whoami} (the token's subject) and {@code add}.
 *
 * <p>With {@code registration}, the authorization server is a front that lets clients register themselves (RFC
 * 7591), which the mock does not: its metadata is the mock's with its own issuer, a registration endpoint, and a
 * token endpoint that passes requests on to the mock (and can be told to refuse refreshes).
 */
public final class SecuredMcpServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ISSUER_ID = "arbor-test";
    private static final HttpClient BROWSER =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    private final MockOAuth2Server authorization;
    private final Server jetty;
    private final McpSyncServer mcp;
    private final boolean registration;
    private final String base;
    private final List<String> tokenRequests = new CopyOnWriteArrayList<>();
    private final List<String> registrations = new CopyOnWriteArrayList<>();
    private final List<String> tokensSeen = new CopyOnWriteArrayList<>();
    private final Set<String> refused = Collections.synchronizedSet(new java.util.HashSet<>());
    private final AtomicBoolean refuseRefresh = new AtomicBoolean();
    private final AtomicInteger unauthorized = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicReference<String> subject =
            new java.util.concurrent.atomic.AtomicReference<>("alice");
    private final DefaultJWTProcessor<SecurityContext> verifier = new DefaultJWTProcessor<>();

    private SecuredMcpServer(boolean registration, long tokenSeconds) throws Exception {
        this.registration = registration;
        this.authorization = new MockOAuth2Server(new OAuth2Config(
                false, null, null, true, new OAuth2TokenProvider(), Set.of(new AudienceFromResource(tokenSeconds))));
        authorization.start(InetAddress.getByName("127.0.0.1"), 0);

        var provider = HttpServletStreamableServerTransportProvider.builder()
                .mcpEndpoint("/mcp")
                .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper()))
                .contextExtractor(request ->
                        McpTransportContext.create(Map.of("subject", String.valueOf(request.getAttribute("subject")))))
                .build();
        this.mcp = McpServer.sync(provider)
                .serverInfo("secured", "1.0.0")
                .capabilities(
                        McpSchema.ServerCapabilities.builder().tools(false).build())
                .toolCall(
                        McpSchema.Tool.builder("whoami", Map.of("type", "object", "properties", Map.of()))
                                .description("Who the token is for")
                                .build(),
                        (exchange, request) -> McpSchema.CallToolResult.builder()
                                .addTextContent(
                                        "subject=" + exchange.transportContext().get("subject"))
                                .build())
                .toolCall(
                        McpSchema.Tool.builder(
                                        "add",
                                        Map.of(
                                                "type",
                                                "object",
                                                "properties",
                                                Map.of("a", Map.of("type", "number"), "b", Map.of("type", "number")),
                                                "required",
                                                List.of("a", "b")))
                                .description("Adds two numbers")
                                .build(),
                        (exchange, request) -> McpSchema.CallToolResult.builder()
                                .addTextContent(String.valueOf(
                                        ((Number) request.arguments().get("a")).doubleValue()
                                                + ((Number) request.arguments().get("b")).doubleValue()))
                                .build())
                .build();

        this.jetty = new Server();
        var connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        var context = new ServletContextHandler();
        context.setContextPath("/");
        var mcpServlet = new ServletHolder(provider);
        mcpServlet.setAsyncSupported(true);
        context.addServlet(mcpServlet, "/mcp");
        var bearer = new FilterHolder((Filter) (request, response, chain) -> {
            if (authorized((HttpServletRequest) request)) {
                chain.doFilter(request, response);
            } else {
                unauthorized.incrementAndGet();
                var http = (HttpServletResponse) response;
                http.setStatus(401);
                http.setHeader(
                        "WWW-Authenticate",
                        "Bearer resource_metadata=\"" + base()
                                + "/.well-known/oauth-protected-resource/mcp\", scope=\"openid tools\"");
            }
        });
        bearer.setAsyncSupported(true);
        context.addFilter(bearer, "/mcp", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new Documents()), "/.well-known/*");
        context.addServlet(new ServletHolder(new Registrations()), "/front/*");
        jetty.setHandler(context);
        jetty.start();
        this.base = "http://127.0.0.1:" + connector.getLocalPort();
        verifier.setJWSKeySelector(new JWSVerificationKeySelector<>(
                JWSAlgorithm.RS256,
                JWKSourceBuilder.create(authorization.jwksUrl(ISSUER_ID).url()).build()));
        verifier.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(
                mcpUrl(),
                new JWTClaimsSet.Builder()
                        .issuer(authorization.issuerUrl(ISSUER_ID).toString())
                        .build(),
                Set.of("sub", "exp")));
    }

    /** A server whose authorization server does not let clients register: a gateway needs a client id. */
    public static SecuredMcpServer start(long tokenSeconds) throws Exception {
        return new SecuredMcpServer(false, tokenSeconds);
    }

    /** A server whose authorization server lets clients register themselves. */
    public static SecuredMcpServer startWithRegistration(long tokenSeconds) throws Exception {
        return new SecuredMcpServer(true, tokenSeconds);
    }

    public String mcpUrl() {
        return base() + "/mcp";
    }

    /** The issuer a gateway discovers: the mock's, or the front's when clients register. */
    public String issuer() {
        return registration
                ? base() + "/front"
                : authorization.issuerUrl(ISSUER_ID).toString();
    }

    /**
     * What a browser does at the authorization server (which consents at once) up to the redirect back: the query of
     * the return address ({@code code}, {@code state}).
     */
    public Map<String, String> consent(String authorizationUrl) throws IOException, InterruptedException {
        HttpResponse<String> response = BROWSER.send(
                HttpRequest.newBuilder(URI.create(authorizationUrl)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 302) {
            throw new IllegalStateException(
                    "the authorization server answered " + response.statusCode() + ": " + response.body());
        }
        URI back = URI.create(response.headers().firstValue("location").orElseThrow());
        var query = new java.util.HashMap<String, String>();
        for (String pair : back.getRawQuery().split("&")) {
            String[] kv = pair.split("=", 2);
            query.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
        }
        return query;
    }

    /** Every token request the authorization server got: "grant_type client_id". */
    public List<String> tokenRequests() {
        return List.copyOf(tokenRequests);
    }

    /** Every client registration: its redirect URIs, as JSON. */
    public List<String> registrations() {
        return List.copyOf(registrations);
    }

    /** Every bearer token the MCP server accepted. */
    public List<String> tokensSeen() {
        return List.copyOf(tokensSeen);
    }

    /** How many requests the MCP server turned away with 401. */
    public int unauthorizedCount() {
        return unauthorized.get();
    }

    /** From now on the authorization server's user is {@code user}: the subject of the tokens it issues next. */
    public void signInAs(String user) {
        subject.set(user);
    }

    /** From now on the MCP server refuses this token, as a server does with a revoked one. */
    public void refuse(String token) {
        refused.add(token);
    }

    /** From now on the front's token endpoint refuses refresh grants with invalid_grant. */
    public void refuseRefresh() {
        refuseRefresh.set(true);
    }

    private String base() {
        return base;
    }

    private boolean authorized(HttpServletRequest request) {
        String header = request.getHeader("Authorization");
        if (header == null || !header.startsWith("Bearer ")) {
            return false;
        }
        String token = header.substring(7);
        if (refused.contains(token)) {
            return false;
        }
        try {
            JWTClaimsSet claims = verifier.process(token, null);
            request.setAttribute("subject", claims.getSubject());
            tokensSeen.add(token);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** Protected-resource metadata, and the front's authorization server metadata. */
    private final class Documents extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String path = request.getRequestURI();
            if (path.equals("/.well-known/oauth-protected-resource/mcp")) {
                ObjectNode prm = JSON.createObjectNode().put("resource", mcpUrl());
                prm.putArray("authorization_servers").add(issuer());
                prm.putArray("scopes_supported").add("openid").add("tools");
                prm.putArray("bearer_methods_supported").add("header");
                write(response, 200, prm);
            } else if (registration && path.equals("/.well-known/oauth-authorization-server/front")) {
                ObjectNode metadata = (ObjectNode) fetch(authorization
                        .oauth2AuthorizationServerMetadataUrl(ISSUER_ID)
                        .toString());
                metadata.put("issuer", issuer());
                metadata.put("registration_endpoint", issuer() + "/register");
                metadata.put("token_endpoint", issuer() + "/token");
                write(response, 200, metadata);
            } else {
                response.sendError(404);
            }
        }
    }

    /** The front: client registration, and a token endpoint in front of the mock's. */
    private final class Registrations extends HttpServlet {
        private final AtomicInteger clients = new AtomicInteger();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            if (!registration) {
                response.sendError(404);
                return;
            }
            byte[] body = request.getInputStream().readAllBytes();
            if (request.getRequestURI().equals("/front/register")) {
                JsonNode asked = JSON.readTree(body);
                registrations.add(asked.path("redirect_uris").toString());
                ObjectNode client = JSON.createObjectNode()
                        .put("client_id", "registered-" + clients.incrementAndGet())
                        .put("token_endpoint_auth_method", "none");
                client.set("redirect_uris", asked.path("redirect_uris"));
                write(response, 201, client);
            } else if (request.getRequestURI().equals("/front/token")) {
                String form = new String(body, StandardCharsets.UTF_8);
                if (refuseRefresh.get() && form.contains("grant_type=refresh_token")) {
                    write(
                            response,
                            400,
                            JSON.createObjectNode()
                                    .put("error", "invalid_grant")
                                    .put("error_description", "refresh token revoked"));
                    return;
                }
                HttpResponse<String> answer;
                try {
                    answer = HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(URI.create(authorization
                                                    .tokenEndpointUrl(ISSUER_ID)
                                                    .toString()))
                                            .header("Content-Type", "application/x-www-form-urlencoded")
                                            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
                response.setStatus(answer.statusCode());
                response.setContentType("application/json");
                response.getOutputStream().write(answer.body().getBytes(StandardCharsets.UTF_8));
            } else {
                response.sendError(404);
            }
        }
    }

    /** Tokens for the resource the client asked for (RFC 8707), which the mock does not do by itself. */
    private final class AudienceFromResource implements OAuth2TokenCallback {
        private final long seconds;

        AudienceFromResource(long seconds) {
            this.seconds = seconds;
        }

        @Override
        public String issuerId() {
            return ISSUER_ID;
        }

        @Override
        public String subject(TokenRequest request) {
            return subject.get();
        }

        @Override
        public String typeHeader(TokenRequest request) {
            return "JWT";
        }

        @Override
        public List<String> audience(TokenRequest request) {
            tokenRequests.add(request.getAuthorizationGrant().getType().getValue() + " "
                    + (request.getClientID() != null
                            ? request.getClientID().getValue()
                            : request.getClientAuthentication() != null
                                    ? request.getClientAuthentication()
                                            .getClientID()
                                            .getValue()
                                    : "-"));
            return request.getResources() == null
                    ? List.of("default")
                    : request.getResources().stream().map(URI::toString).toList();
        }

        @Override
        public Map<String, Object> addClaims(TokenRequest request) {
            return Map.of();
        }

        @Override
        public long tokenExpiry() {
            return seconds;
        }
    }

    private static JsonNode fetch(String url) throws IOException {
        try {
            return JSON.readTree(HttpClient.newHttpClient()
                    .send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
                    .body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void write(HttpServletResponse response, int status, JsonNode body) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.getOutputStream().write(JSON.writeValueAsBytes(body));
    }

    @Override
    public void close() {
        mcp.closeGracefully();
        try {
            jetty.stop();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not stop", e);
        }
        authorization.shutdown();
    }
}
