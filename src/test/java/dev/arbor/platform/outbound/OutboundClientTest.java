package dev.arbor.platform.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SSRF policy: refused addresses are refused before any connection is made, so these tests send no traffic
 * anywhere but to a server of their own on loopback.
 */
class OutboundClientTest {
    private HttpServer local;
    private int port;
    private final AtomicInteger hits = new AtomicInteger();

    @BeforeEach
    void startLocalServer() throws Exception {
        local = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        local.createContext("/hello", exchange -> {
            hits.incrementAndGet();
            byte[] body = "hi".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        local.createContext("/host", exchange -> {
            byte[] body = exchange.getRequestHeaders().getFirst("Host").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        local.createContext("/to-metadata", exchange -> {
            exchange.getResponseHeaders().add("Location", "http://169.254.169.254/latest/meta-data/");
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
        local.createContext("/to-hello", exchange -> {
            exchange.getResponseHeaders().add("Location", "/hello");
            exchange.sendResponseHeaders(307, -1);
            exchange.close();
        });
        local.start();
        port = local.getAddress().getPort();
    }

    @AfterEach
    void stopLocalServer() {
        local.stop(0);
    }

    static OutboundPolicy policy(List<String> entries) {
        return new OutboundPolicy(
                entries.stream().map(AllowedDestination::parse).toList());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "http://127.0.0.1/",
                "http://localhost/",
                "http://[::1]/",
                "http://10.1.2.3/",
                "http://172.16.0.1/",
                "http://192.168.1.1/",
                "http://169.254.169.254/latest/meta-data/",
                "http://100.64.0.1/",
                "http://0.0.0.0/",
                "http://[::ffff:127.0.0.1]/",
                "http://[fd00::1]/",
                "http://[fe80::1]/",
                "http://224.0.0.1/",
                "http://192.0.2.7/",
                "http://198.51.100.7/",
                "http://203.0.113.7/",
                "http://[2001:db8::7]/",
                "http://[64:ff9b::a00:1]/",
                "http://[64:ff9b:1::a00:1]/",
                "http://[2002:a00:1::1]/",
                "http://[2001:0:a00:1::1]/",
                "http://[::10.0.0.1]/",
                "http://[::7f00:1]/",
                "http://[::ffff:0:10.0.0.1]/",
                "http://192.88.99.1/"
            })
    void internalAddressesAreRefusedByDefault(String url) {
        var policy = policy(List.of());
        assertThatThrownBy(() -> policy.check(URI.create(url)))
                .isInstanceOf(OutboundRefusedException.class)
                .hasMessageContaining("ARBOR_OUTBOUND_ALLOW");
    }

    @Test
    void otherSchemesAreRefused() {
        var policy = policy(List.of());
        assertThatThrownBy(() -> policy.check(URI.create("file:///etc/passwd")))
                .isInstanceOf(OutboundRefusedException.class);
        assertThatThrownBy(() -> policy.check(URI.create("gopher://93.184.216.34/")))
                .isInstanceOf(OutboundRefusedException.class);
    }

    @Test
    void publicAddressesPass() {
        policy(List.of()).check(URI.create("https://93.184.216.34/"));
        policy(List.of()).check(URI.create("https://[2606:2800:220:1::1]/"));
    }

    @Test
    void listedAddressesRangesAndNamesAreAllowed() {
        policy(List.of("127.0.0.1")).check(URI.create("http://127.0.0.1:9/"));
        policy(List.of("10.0.0.0/8")).check(URI.create("http://10.20.30.40/"));
        policy(List.of("localhost")).check(URI.create("http://localhost:9/"));
        assertThatThrownBy(() -> policy(List.of("10.0.0.0/8")).check(URI.create("http://192.168.0.1/")))
                .isInstanceOf(OutboundRefusedException.class);
    }

    @Test
    void anAllowedEntryWithAPortAllowsThatPortOnly() {
        var policy = policy(List.of("127.0.0.1:8080", "[::1]:9000", "localhost:25", "10.0.0.0/8"));
        policy.check(URI.create("http://127.0.0.1:8080/"));
        policy.check(URI.create("http://[::1]:9000/"));
        policy.checkHost("localhost", 25);
        policy.check(URI.create("http://10.1.2.3:1234/"));
        assertThatThrownBy(() -> policy.check(URI.create("http://127.0.0.1:8081/")))
                .isInstanceOf(OutboundRefusedException.class);
        assertThatThrownBy(() -> policy.check(URI.create("http://127.0.0.1/")))
                .isInstanceOf(OutboundRefusedException.class);
        assertThatThrownBy(() -> policy.check(URI.create("http://[::1]:9001/")))
                .isInstanceOf(OutboundRefusedException.class);
        assertThatThrownBy(() -> policy.checkHost("localhost", 587)).isInstanceOf(OutboundRefusedException.class);
    }

    @Test
    void aRedirectToAnotherOriginCarriesNoCredentialOfAnyName() throws Exception {
        var other = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        var seen = new java.util.concurrent.ConcurrentHashMap<String, List<String>>();
        other.createContext("/echo", exchange -> {
            exchange.getRequestHeaders().forEach((name, values) -> seen.put(name.toLowerCase(), values));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        other.start();
        try {
            local.createContext("/to-other", exchange -> {
                exchange.getResponseHeaders()
                        .add(
                                "Location",
                                "http://127.0.0.1:" + other.getAddress().getPort() + "/echo");
                exchange.sendResponseHeaders(307, -1);
                exchange.close();
            });
            var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/to-other"))
                    .header("Authorization", "Bearer secret-1")
                    .header("Cookie", "session=secret-2")
                    .header("X-Api-Key", "secret-3")
                    .header("X-Custom-Token", "secret-4")
                    .header("Accept", "application/json")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{}"))
                    .build();

            var client = new OutboundClient(policy(List.of("127.0.0.1")));
            assertThat(client.send(request, HttpResponse.BodyHandlers.discarding())
                            .statusCode())
                    .isEqualTo(204);

            assertThat(seen)
                    .containsKeys("accept", "content-type")
                    .doesNotContainKeys("authorization", "cookie", "x-api-key", "x-custom-token");
        } finally {
            other.stop(0);
        }
    }

    @Test
    void loopbackIsRefusedUntilListed() throws Exception {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
                .build();
        assertThatThrownBy(
                        () -> new OutboundClient(policy(List.of())).send(request, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(OutboundRefusedException.class);

        var allowed = new OutboundClient(policy(List.of("127.0.0.1")));
        assertThat(allowed.send(request, HttpResponse.BodyHandlers.ofString()).body())
                .isEqualTo("hi");
    }

    @Test
    void aCallWithItsBodyAsBytesIsRefusedUntilListedAndFollowsNoRedirect() throws Exception {
        var hello = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        try (var refusing = new OutboundClient(policy(List.of()))) {
            assertThatThrownBy(() -> refusing.call(hello, new byte[] {'{', '}'}, 1024))
                    .isInstanceOf(OutboundRefusedException.class);
            assertThatThrownBy(() -> refusing.open(hello, new byte[] {'{', '}'}))
                    .isInstanceOf(OutboundRefusedException.class);
        }
        assertThat(hits).hasValue(0);
        try (var client = new OutboundClient(policy(List.of("127.0.0.1")))) {
            assertThat(client.call(hello, new byte[] {'{', '}'}, 1024).body())
                    .asString()
                    .isEqualTo("hi");
            assertThat(client.open(hello, new byte[] {'{', '}'}).body().readAllBytes())
                    .asString()
                    .isEqualTo("hi");
            var toMetadata = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/to-metadata"))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build();
            assertThat(client.call(toMetadata, new byte[0], 1024).status()).isEqualTo(302);
        }
    }

    @Test
    void aCallWhoseAnswerIsLargerThanAllowedFails() throws Exception {
        var hello = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        try (var client = new OutboundClient(policy(List.of("127.0.0.1")))) {
            assertThatThrownBy(() -> client.call(hello, new byte[0], 1)).isInstanceOf(IOException.class);
        }
    }

    @Test
    void redirectsAreCheckedAgainAtEveryHop() throws Exception {
        var client = new OutboundClient(policy(List.of("127.0.0.1")));
        var toMetadata = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/to-metadata"))
                .build();
        assertThatThrownBy(() -> client.send(toMetadata, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(OutboundRefusedException.class)
                .hasMessageContaining("169.254.169.254");

        var toHello = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/to-hello"))
                .build();
        assertThat(client.send(toHello, HttpResponse.BodyHandlers.ofString()).body())
                .isEqualTo("hi");
    }

    @Test
    void theConnectionGoesToTheAddressThePolicyResolvedAndChecked() throws Exception {
        var lookups = new AtomicInteger();
        // a name only the policy's resolver knows: had the client looked it up itself, it could not have connected
        var policy = new OutboundPolicy(List.of(AllowedDestination.parse("127.0.0.1:" + port)), host -> {
            lookups.incrementAndGet();
            if (!host.equals("service.test")) {
                throw new UnknownHostException(host);
            }
            return new InetAddress[] {InetAddress.getByName("127.0.0.1")};
        });
        try (var client = new OutboundClient(policy)) {
            var request = HttpRequest.newBuilder(URI.create("http://service.test:" + port + "/host"))
                    .build();
            var response = client.send(request, HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("service.test:" + port); // the name, not the address, as Host
        }
        assertThat(lookups).hasValue(1);
    }

    @Test
    void aNameThatRebindsToAnInternalAddressAfterItsCheckIsRefusedAtTheConnection() throws Exception {
        var answers = new ArrayDeque<>(List.of("93.184.216.34", "127.0.0.1"));
        var policy =
                new OutboundPolicy(List.of(), host -> new InetAddress[] {InetAddress.getByName(answers.removeFirst())});
        URI uri = URI.create("http://rebind.test:" + port + "/hello");
        policy.check(uri); // when the URL was saved, the name had a public address

        try (var client = new OutboundClient(policy)) {
            assertThatThrownBy(() ->
                            client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(OutboundRefusedException.class)
                    .hasMessageContaining("127.0.0.1");
        }
        assertThat(hits).hasValue(0);
        assertThat(answers).isEmpty();
    }

    @Test
    void tlsChecksTheCertificateAgainstTheNameWhileConnectingToTheCheckedAddress(@TempDir Path dir) throws Exception {
        char[] password = "changeit".toCharArray();
        Path store = dir.resolve("tls.p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "service",
                        "-keyalg",
                        "EC",
                        "-groupname",
                        "secp256r1",
                        "-dname",
                        "CN=service.test",
                        "-ext",
                        "SAN=dns:service.test",
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        "changeit")
                .redirectErrorStream(true)
                .start();
        assertThat(keytool.waitFor())
                .as(new String(keytool.getInputStream().readAllBytes()))
                .isZero();
        KeyStore keys = KeyStore.getInstance(store.toFile(), password);
        var keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, password);
        var serverTls = SSLContext.getInstance("TLS");
        serverTls.init(keyManagers.getKeyManagers(), null, null);
        var trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(keys);
        var clientTls = SSLContext.getInstance("TLS");
        clientTls.init(null, trustManagers.getTrustManagers(), null);

        HttpsServer https = HttpsServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(serverTls));
        https.createContext("/hello", exchange -> {
            byte[] body = "secure".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        https.start();
        int tlsPort = https.getAddress().getPort();
        // every name is this loopback server, as a rebinding DNS answer would make it
        var policy = new OutboundPolicy(List.of(AllowedDestination.parse("127.0.0.1:" + tlsPort)), host ->
                new InetAddress[] {InetAddress.getByName("127.0.0.1")});
        try (var client = new OutboundClient(policy, clientTls)) {
            var named = HttpRequest.newBuilder(URI.create("https://service.test:" + tlsPort + "/hello"))
                    .build();
            assertThat(client.send(named, HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo("secure");

            var other = HttpRequest.newBuilder(URI.create("https://other.test:" + tlsPort + "/hello"))
                    .build();
            assertThatThrownBy(() -> client.send(other, HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(IOException.class)
                    .hasStackTraceContaining("other.test");
        } finally {
            https.stop(0);
        }
    }
}
