package dev.arbor.platform.outbound;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The {@link OutboundClient} seen as a JDK {@link HttpClient}, for a library that calls out through one it builds
 * itself (the MCP SDK's transports): each exchange is the outbound client's, so its host is resolved once, by the
 * policy, and the connection goes to an address the policy checked. The outbound client's own settings apply: HTTP/1.1,
 * redirects followed with each hop checked, its connect timeout. What it cannot honour (a proxy, cookies, an
 * authenticator, another TLS context) is refused when the library asks for it, never ignored.
 */
final class JdkClientView extends HttpClient {
    private final OutboundClient outbound;
    private final SSLContext tls;

    private JdkClientView(OutboundClient outbound, SSLContext tls) {
        this.outbound = outbound;
        this.tls = tls;
    }

    /** Builds views of {@code outbound}; the settings it takes are the ones the outbound client already keeps. */
    static final class Builder implements HttpClient.Builder {
        private final OutboundClient outbound;
        private final SSLContext tls;

        Builder(OutboundClient outbound, SSLContext tls) {
            this.outbound = requireNonNull(outbound, "outbound");
            this.tls = requireNonNull(tls, "tls");
        }

        @Override
        public Builder connectTimeout(Duration duration) {
            return this;
        }

        @Override
        public Builder version(Version version) {
            return this;
        }

        @Override
        public Builder followRedirects(Redirect policy) {
            return this;
        }

        @Override
        public Builder executor(Executor executor) {
            return this;
        }

        @Override
        public Builder priority(int priority) {
            return this;
        }

        @Override
        public Builder sslParameters(SSLParameters sslParameters) {
            return this;
        }

        @Override
        public Builder cookieHandler(CookieHandler cookieHandler) {
            throw unsupported("cookies");
        }

        @Override
        public Builder sslContext(SSLContext sslContext) {
            throw unsupported("a TLS context of its own");
        }

        @Override
        public Builder proxy(ProxySelector proxySelector) {
            throw unsupported("a proxy");
        }

        @Override
        public Builder authenticator(Authenticator authenticator) {
            throw unsupported("an authenticator");
        }

        private static UnsupportedOperationException unsupported(String what) {
            return new UnsupportedOperationException("outbound calls take no " + what);
        }

        @Override
        public HttpClient build() {
            return new JdkClientView(outbound, tls);
        }
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        return outbound.send(request, handler);
    }

    /** The exchange on a virtual thread of its own; the answer once its head (and a body given early) is in. */
    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        var answer = new CompletableFuture<HttpResponse<T>>();
        Thread.ofVirtual().name("outbound-call").start(() -> {
            try {
                answer.complete(outbound.send(request, handler));
            } catch (IOException | RuntimeException e) {
                answer.completeExceptionally(e);
            } catch (InterruptedException e) {
                answer.completeExceptionally(new IOException("interrupted while calling " + request.uri(), e));
            }
        });
        return answer;
    }

    /** HTTP/1.1 has no pushed responses: the push handler is never called. */
    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request,
            HttpResponse.BodyHandler<T> handler,
            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        return sendAsync(request, handler);
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return Optional.empty();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return Optional.of(OutboundClient.CONNECT_TIMEOUT);
    }

    @Override
    public Redirect followRedirects() {
        return Redirect.ALWAYS;
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return Optional.empty();
    }

    @Override
    public SSLContext sslContext() {
        return tls;
    }

    @Override
    public SSLParameters sslParameters() {
        return tls.getDefaultSSLParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return Optional.empty();
    }

    @Override
    public Version version() {
        return Version.HTTP_1_1;
    }

    @Override
    public Optional<Executor> executor() {
        return Optional.empty();
    }
}
