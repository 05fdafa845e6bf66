package dev.arbor.platform.outbound;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.tracing.Propagation;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClientTransport;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;

/**
 * The one HTTP client for calls this server makes on behalf of users (HTTP request actions, chat webhooks, trigger
 * deliveries, OAuth, model downloads). Every URL, and every redirect it leads to, passes the {@link OutboundPolicy},
 * and the connection goes to an address the policy checked: the client's name resolution IS the policy's, so a name
 * whose DNS answer changes between the check and the connection (DNS rebinding) cannot reach an internal address.
 * TLS still sends the host name (SNI) and checks the certificate against it.
 *
 * <p>Jetty's client, because the JDK's resolves names itself (a resolver of our own would be process-wide); requests
 * and responses keep the JDK's types, so callers describe a call as they would to {@link HttpClient}. HTTP/1.1 only;
 * bodies come as sent (no compression is asked for). Each call carries the W3C {@code traceparent} of the span current
 * where it is made.
 */
public final class OutboundClient implements AutoCloseable {
    static final int MAX_REDIRECTS = 5;
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_CONNECTIONS_PER_DESTINATION = 512;
    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);
    /** The headers a redirect to another origin keeps: they describe the request and carry no credential. */
    private static final Set<String> CROSS_ORIGIN_HEADERS =
            Set.of("accept", "accept-language", "content-type", "content-language", "user-agent");

    private final OutboundPolicy policy;
    private final SSLContext tls;
    private final org.eclipse.jetty.client.HttpClient client;

    public OutboundClient(OutboundPolicy policy) {
        this(policy, defaultTls());
    }

    /** A client that trusts the certificates {@code tls} trusts (a test's own authority). */
    OutboundClient(OutboundPolicy policy, SSLContext tls) {
        this.policy = requireNonNull(policy, "policy");
        this.tls = requireNonNull(tls, "tls");
        var connector = new ClientConnector();
        var sslContextFactory = new SslContextFactory.Client(); // checks the certificate names the host (HTTPS)
        sslContextFactory.setSslContext(tls);
        connector.setSslContextFactory(sslContextFactory);
        connector.setConnectTimeout(CONNECT_TIMEOUT);
        var threads = new QueuedThreadPool();
        threads.setName("outbound-http");
        threads.setDaemon(true);
        connector.setExecutor(threads);
        HttpClientTransport transport = new HttpClientTransportOverHTTP(connector);
        client = new org.eclipse.jetty.client.HttpClient(transport);
        client.setExecutor(threads);
        client.setFollowRedirects(false);
        // model endpoints take many long calls at once (streamed answers): Jetty's 64 would queue the rest
        client.setMaxConnectionsPerDestination(MAX_CONNECTIONS_PER_DESTINATION);
        client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "Arbor"));
        client.getContentDecoderFactories().clear();
        client.setSocketAddressResolver(this::resolve);
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("the outbound HTTP client did not start", e);
        }
    }

    private static SSLContext defaultTls() {
        try {
            return SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no TLS", e);
        }
    }

    /** Every connection's name resolution: the policy's check, whose addresses are the ones connected to. */
    private void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
        var addresses = new ArrayList<InetSocketAddress>();
        try {
            for (InetAddress address : policy.checkHost(host, port)) {
                // the address keeps the name: TLS takes the name to check the certificate against from it
                addresses.add(new InetSocketAddress(InetAddress.getByAddress(host, address.getAddress()), port));
            }
        } catch (OutboundRefusedException | UnknownHostException e) {
            promise.failed(e);
            return;
        }
        promise.succeeded(addresses);
    }

    /**
     * A builder of JDK HTTP clients whose every exchange is this client's ({@link #send}: checked and connected to
     * the checked address), for a library that builds its own JDK client, such as the MCP SDK's transports. A JDK
     * client of its own would resolve the name again.
     */
    public HttpClient.Builder jdkClientBuilder() {
        return new JdkClientView.Builder(this, tls);
    }

    /**
     * Sends a request, following up to {@value #MAX_REDIRECTS} redirects, each checked again; the request's timeout
     * bounds the wait for each response's head and each pause while its body streams (without one, neither is bounded,
     * as with the JDK's client).
     *
     * @throws OutboundRefusedException when the policy refuses the URL or a redirect, before any byte is sent there
     */
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> body)
            throws IOException, InterruptedException {
        HttpRequest current = request;
        for (int hop = 0; ; hop++) {
            policy.requireCallable(current.uri());
            HttpResponse<T> response = exchange(current, body);
            Optional<String> location = response.headers().firstValue("location");
            if (!REDIRECTS.contains(response.statusCode()) || location.isEmpty()) {
                return response;
            }
            discard(response.body());
            if (hop == MAX_REDIRECTS) {
                throw new IOException("more than " + MAX_REDIRECTS + " redirects from " + request.uri());
            }
            current = redirected(current, response.statusCode(), current.uri().resolve(location.get()));
        }
    }

    /**
     * Sends {@code body} as the request's, following no redirect (a redirect is the answer), and gives the answer
     * once its head arrived, its body to be read as it comes: no thread of its own, no copy. The request's timeout
     * bounds the wait for the head and each pause while the body streams; closing the body before its end aborts the
     * exchange.
     *
     * @throws OutboundRefusedException when the policy refuses the URL, before any byte is sent there
     */
    public StreamedAnswer open(HttpRequest request, byte[] body) throws IOException, InterruptedException {
        policy.requireCallable(request.uri());
        return start(request, Optional.of(body));
    }

    /**
     * Starts sending {@code body} as the request's and returns at once, following no redirect: the answer's head is
     * awaited with {@link Pending#head}, and the exchange may be aborted from any thread at any time (a deadline's
     * watchdog, a hedged call that lost). The request's timeout bounds each pause of the exchange, as with
     * {@link #open}.
     *
     * @throws OutboundRefusedException when the policy refuses the URL, before any byte is sent there
     */
    public Pending begin(HttpRequest request, byte[] body) throws IOException, InterruptedException {
        policy.requireCallable(request.uri());
        Request call = prepared(request, Optional.of(body));
        var listener = new InputStreamResponseListener();
        var pending = new Pending(call, listener);
        call.onRequestBegin(begun -> pending.connected = true);
        call.send(listener);
        return pending;
    }

    /** An exchange under way: whether it has a connection yet, its head once it comes, and a way to abort it. */
    public static final class Pending {
        private final Request call;
        private final InputStreamResponseListener listener;
        private volatile boolean connected;

        private Pending(Request call, InputStreamResponseListener listener) {
            this.call = call;
            this.listener = listener;
        }

        /** Whether a connection to the server was made and the request began to go out on it. */
        public boolean connected() {
            return connected;
        }

        /** The answer once its head arrived, its body to be read as it comes; waits until then or an abort. */
        public StreamedAnswer head() throws IOException, InterruptedException {
            try {
                org.eclipse.jetty.client.Response head = listener.get(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
                return new StreamedAnswer(head.getStatus(), headers(head), listener.getInputStream());
            } catch (TimeoutException e) {
                var _ = call.abort(e); // whether it was still running to abort changes nothing: the wait is over
                throw new HttpTimeoutException("no answer in time");
            } catch (ExecutionException e) {
                throw failure(e.getCause());
            }
        }

        /** Ends the exchange where it is: a wait for its head or a read of its body fails with {@code cause}. */
        public void abort(Throwable cause) {
            var _ = call.abort(cause); // an exchange already over has nothing to abort
        }
    }

    /** An answer whose body is read as it arrives; closing the body before its end aborts the exchange. */
    public record StreamedAnswer(int status, HttpHeaders headers, InputStream body) {
        public StreamedAnswer {
            requireNonNull(headers, "headers");
            requireNonNull(body, "body");
        }
    }

    /**
     * Sends {@code body} as the request's and reads the whole answer, of at most {@code maxBytes}, following no
     * redirect: the same as {@link #open} read to its end, with one hand-off between threads instead of one per part
     * of the body. The request's timeout bounds the wait for all of it.
     *
     * @throws OutboundRefusedException when the policy refuses the URL, before any byte is sent there
     * @throws IOException when the answer is larger than {@code maxBytes}, among the other failures
     */
    public WholeAnswer call(HttpRequest request, byte[] body, int maxBytes) throws IOException, InterruptedException {
        policy.requireCallable(request.uri());
        Request call = prepared(request, Optional.of(body));
        CompletableFuture<ContentResponse> answer = new CompletableResponseListener(call, maxBytes).send();
        try {
            ContentResponse response =
                    answer.get(request.timeout().map(Duration::toNanos).orElse(Long.MAX_VALUE), TimeUnit.NANOSECONDS);
            return new WholeAnswer(response.getStatus(), headers(response), response.getContent());
        } catch (TimeoutException e) {
            var _ = call.abort(e); // whether it was still running to abort changes nothing: the wait is over
            throw new HttpTimeoutException("no answer from " + request.uri().getHost() + " in time");
        } catch (ExecutionException e) {
            throw failure(e.getCause());
        }
    }

    /** An answer read whole. */
    public record WholeAnswer(int status, HttpHeaders headers, byte[] body) {
        public WholeAnswer {
            requireNonNull(headers, "headers");
            requireNonNull(body, "body");
        }
    }

    private Request prepared(HttpRequest request, Optional<byte[]> body) throws IOException, InterruptedException {
        Request call = client.newRequest(request.uri()).method(request.method());
        // as the JDK client does, a request without a timeout waits for as long as the server takes (0: no limit),
        // such as the event stream an MCP server keeps open, where the connector's own idle limit would cut it
        call.idleTimeout(request.timeout().map(Duration::toMillis).orElse(0L), TimeUnit.MILLISECONDS);
        call.headers(headers ->
                request.headers().map().forEach((name, values) -> values.forEach(value -> headers.add(name, value))));
        // the trace of the request or run this call is made for goes on at the other end (model endpoints, MCP
        // servers, webhook targets, HTTP Request steps): every outbound call passes here
        call.headers(headers -> Propagation.inject(headers::put));
        if (body.isPresent()) {
            call.body(new BytesRequestContent(body.get()));
        } else if (request.bodyPublisher().isPresent()
                && request.bodyPublisher().get().contentLength() != 0) {
            call.body(new BytesRequestContent(bytes(request.bodyPublisher().get())));
        }
        return call;
    }

    private StreamedAnswer start(HttpRequest request, Optional<byte[]> body) throws IOException, InterruptedException {
        Request call = prepared(request, body);
        var listener = new InputStreamResponseListener();
        call.send(listener);
        org.eclipse.jetty.client.Response head;
        try {
            head = listener.get(request.timeout().map(Duration::toNanos).orElse(Long.MAX_VALUE), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            var _ = call.abort(e); // whether it was still running to abort changes nothing: the wait is over
            throw new HttpTimeoutException("no answer from " + request.uri().getHost() + " in time");
        } catch (ExecutionException e) {
            throw failure(e.getCause());
        }
        return new StreamedAnswer(head.getStatus(), headers(head), listener.getInputStream());
    }

    private <T> HttpResponse<T> exchange(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        StreamedAnswer head = start(request, Optional.empty());
        var headers = head.headers();
        var info = new Info(head.status(), headers);
        HttpResponse.BodySubscriber<T> subscriber = handler.apply(info);
        BodyPump.start(head.body(), subscriber);
        try {
            return new Answer<>(
                    head.status(),
                    request,
                    headers,
                    subscriber.getBody().toCompletableFuture().get());
        } catch (ExecutionException e) {
            throw failure(e.getCause());
        }
    }

    /** What a failed exchange throws: the policy's refusal as it is, a timeout as the JDK client's, else I/O. */
    private static IOException failure(@Nullable Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof OutboundRefusedException refused) {
                throw refused;
            }
        }
        if (cause instanceof TimeoutException) {
            return new HttpTimeoutException(cause.getMessage());
        }
        return cause instanceof IOException io ? io : new IOException(cause);
    }

    private static HttpHeaders headers(org.eclipse.jetty.client.Response response) {
        var map = new TreeMap<String, List<String>>(String.CASE_INSENSITIVE_ORDER);
        for (HttpField field : response.getHeaders()) {
            map.computeIfAbsent(field.getName(), name -> new ArrayList<>()).add(field.getValue());
        }
        return HttpHeaders.of(map, (name, value) -> true);
    }

    /** A request body is small (JSON, a form): sent as bytes, read from the JDK publisher that describes it. */
    private static byte[] bytes(HttpRequest.BodyPublisher publisher) throws IOException, InterruptedException {
        var out = new ByteArrayOutputStream();
        var done = new CompletableFuture<byte[]>();
        publisher.subscribe(new Flow.Subscriber<ByteBuffer>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                byte[] chunk = new byte[item.remaining()];
                item.get(chunk);
                out.write(chunk, 0, chunk.length);
            }

            @Override
            public void onError(Throwable throwable) {
                done.completeExceptionally(throwable);
            }

            @Override
            public void onComplete() {
                done.complete(out.toByteArray());
            }
        });
        try {
            return done.get();
        } catch (ExecutionException e) {
            throw new IOException("the request body could not be read", e.getCause());
        }
    }

    private record Info(int statusCode, HttpHeaders headers) implements HttpResponse.ResponseInfo {
        @Override
        public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
        }
    }

    private record Answer<T>(int statusCode, HttpRequest request, HttpHeaders headers, T body)
            implements HttpResponse<T> {
        @Override
        public Optional<HttpResponse<T>> previousResponse() {
            return Optional.empty();
        }

        @Override
        public Optional<SSLSession> sslSession() {
            return Optional.empty();
        }

        @Override
        public URI uri() {
            return request.uri();
        }

        @Override
        public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
        }
    }

    private static HttpRequest redirected(HttpRequest previous, int status, URI target) {
        boolean keepsMethod = status == 307
                || status == 308
                || previous.method().equals("GET")
                || previous.method().equals("HEAD");
        var builder = HttpRequest.newBuilder(target);
        previous.timeout().ifPresent(builder::timeout);
        boolean sameOrigin = sameOrigin(previous.uri(), target);
        previous.headers().map().forEach((name, values) -> {
            // what was meant for one origin never follows a redirect to another, whatever a header is called
            // (Authorization, Cookie, X-Api-Key, X-Whatever-Token): only headers that carry no credential do
            if (sameOrigin || CROSS_ORIGIN_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> builder.header(name, value));
            }
        });
        if (keepsMethod) {
            builder.method(previous.method(), previous.bodyPublisher().orElse(HttpRequest.BodyPublishers.noBody()));
        } else {
            builder.GET();
        }
        return builder.build();
    }

    private static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme())
                && a.getHost().equalsIgnoreCase(b.getHost())
                && a.getPort() == b.getPort();
    }

    private static void discard(Object body) throws IOException {
        if (body instanceof Closeable closeable) {
            closeable.close();
        }
    }

    @Override
    public void close() {
        try {
            client.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the outbound HTTP client did not stop", e);
        }
    }
}
