import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Issue 36, item 9: slow-header connections from many loopback addresses against {@code /health} probes. Two modes,
 * which {@code run.sh} starts as separate processes (one process cannot hold 20,000 sockets under a 20,000 descriptor
 * limit):
 *
 * <ul>
 *   <li>{@code flood PORT COUNT FIRST_ADDRESS ADDRESSES SECONDS REOPEN_MS}: holds {@code COUNT} connections, each bound to one of
 *       {@code 127.0.0.FIRST_ADDRESS ...} in turn, each sending {@code GET /health HTTP/1.1} and then one header line
 *       every few seconds, never the blank line that ends the headers. A connection the server closes is opened again
 *       {@code REOPEN_MS} later, as a client that wants to hold the server would. Prints what it held every 5 s.
 *   <li>{@code probe PORT SERVER_PID PROBES EVERY_MS GO_FILE}: one request to warm the client up (not counted),
 *       then, once {@code GO_FILE} exists (the flood is up), {@code PROBES} requests to {@code GET /health},
 *       each a new connection from 127.0.0.1 with 10 s to answer, one every {@code EVERY_MS}; beside each, the server
 *       process's open descriptors ({@code /proc/PID/fd}). Prints one line per probe and a summary.
 * </ul>
 */
public final class SlowHeaderFlood {
    private static final Duration TRICKLE = Duration.ofSeconds(2);

    public static void main(String[] args) throws Exception {
        switch (args.length > 0 ? args[0] : "") {
            case "flood" ->
                flood(
                        Integer.parseInt(args[1]),
                        Integer.parseInt(args[2]),
                        Integer.parseInt(args[3]),
                        Integer.parseInt(args[4]),
                        Duration.ofSeconds(Long.parseLong(args[5])),
                        Duration.ofMillis(Long.parseLong(args[6])));
            case "probe" ->
                probe(
                        Integer.parseInt(args[1]),
                        Long.parseLong(args[2]),
                        Integer.parseInt(args[3]),
                        Duration.ofMillis(Long.parseLong(args[4])),
                        Path.of(args[5]));
            default -> {
                System.err.println("flood PORT COUNT FIRST_ADDRESS ADDRESSES SECONDS REOPEN_MS"
                        + " | probe PORT SERVER_PID PROBES EVERY_MS GO_FILE");
                System.exit(2);
            }
        }
    }

    /** One slow client connection: where it comes from, and when it next sends a line or opens again. */
    private static final class Slow {
        final InetAddress from;
        SocketChannel channel;
        long nextAtNanos;
        boolean connected;

        Slow(InetAddress from) {
            this.from = from;
        }
    }

    private static void flood(int port, int count, int firstAddress, int addresses, Duration length, Duration reopen)
            throws IOException, InterruptedException {
        var server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        var slow = new ArrayList<Slow>(count);
        for (int i = 0; i < count; i++) {
            slow.add(new Slow(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (firstAddress + i % addresses)})));
        }
        long opened = 0;
        long closedByServer = 0;
        long failedToOpen = 0;
        long start = System.nanoTime();
        long end = start + length.toNanos();
        long nextReport = start + TimeUnit.SECONDS.toNanos(5);
        ByteBuffer sink = ByteBuffer.allocate(4096);
        try (Selector selector = Selector.open()) {
            while (System.nanoTime() < end) {
                long now = System.nanoTime();
                for (Slow s : slow) {
                    if (s.nextAtNanos > now) {
                        continue;
                    }
                    if (s.channel == null) {
                        try {
                            s.channel = SocketChannel.open();
                            s.channel.configureBlocking(false);
                            s.channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                            s.channel.bind(new InetSocketAddress(s.from, 0));
                            s.connected = s.channel.connect(server);
                            if (!s.connected) {
                                s.channel.register(selector, SelectionKey.OP_CONNECT, s);
                            } else {
                                s.channel.register(selector, SelectionKey.OP_READ, s);
                                started(s);
                                opened++;
                            }
                            s.nextAtNanos = now + jitter(TRICKLE);
                        } catch (IOException e) {
                            failedToOpen++;
                            drop(s, now + reopen.toNanos());
                        }
                        continue;
                    }
                    if (s.connected) {
                        try {
                            s.channel.write(ascii(
                                    "X-Slow-" + ThreadLocalRandom.current().nextInt(1000) + ": 1\r\n"));
                            s.nextAtNanos = now + jitter(TRICKLE);
                        } catch (IOException e) {
                            closedByServer++;
                            drop(s, now + reopen.toNanos());
                        }
                    }
                }
                selector.select(50);
                for (var key : selector.selectedKeys()) {
                    Slow s = (Slow) key.attachment();
                    try {
                        if (key.isConnectable()) {
                            s.channel.finishConnect();
                            s.connected = true;
                            key.interestOps(SelectionKey.OP_READ);
                            started(s);
                            opened++;
                        } else if (key.isReadable()) {
                            sink.clear();
                            if (s.channel.read(sink) < 0) {
                                closedByServer++;
                                drop(s, System.nanoTime() + reopen.toNanos());
                            }
                        }
                    } catch (IOException e) {
                        if (s.connected) {
                            closedByServer++;
                        } else {
                            failedToOpen++;
                        }
                        drop(s, System.nanoTime() + reopen.toNanos());
                    }
                }
                selector.selectedKeys().clear();
                if (System.nanoTime() > nextReport) {
                    long held = slow.stream().filter(s -> s.connected).count();
                    System.out.printf(
                            Locale.ROOT,
                            "flood %d s: held %d of %d, opened %d, closed by the server %d, failed to open %d%n",
                            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
                            held,
                            count,
                            opened,
                            closedByServer,
                            failedToOpen);
                    nextReport += TimeUnit.SECONDS.toNanos(5);
                }
            }
        }
        for (Slow s : slow) {
            if (s.channel != null) {
                s.channel.close();
            }
        }
        System.out.printf(
                Locale.ROOT,
                "flood done: opened %d, closed by the server %d, failed to open %d%n",
                opened,
                closedByServer,
                failedToOpen);
    }

    private static void started(Slow s) throws IOException {
        s.channel.write(ascii("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    }

    /** Closes a connection the server closed (or that never opened), to be opened again at {@code reopenAt}. */
    private static void drop(Slow s, long reopenAt) {
        try {
            if (s.channel != null) {
                s.channel.close();
            }
        } catch (IOException ignored) {
            // closing a socket the server closed: nothing left to do
        }
        s.channel = null;
        s.connected = false;
        s.nextAtNanos = reopenAt;
    }

    private static long jitter(Duration around) {
        return around.toNanos() / 2 + ThreadLocalRandom.current().nextLong(around.toNanos());
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static void probe(int port, long serverPid, int probes, Duration every, Path go)
            throws InterruptedException {
        var uri = URI.create("http://127.0.0.1:" + port + "/health");
        System.out.println("warm-up probe: " + probeOnce(uri));
        while (!Files.exists(go)) {
            Thread.sleep(100); // polls for the caller's signal that the flood is up
        }
        int failed = 0;
        long maxDescriptors = 0;
        var latencies = new ArrayList<Long>();
        for (int i = 1; i <= probes; i++) {
            long started = System.nanoTime();
            String outcome = probeOnce(uri);
            if (!outcome.equals("200")) {
                failed++;
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            latencies.add(millis);
            long descriptors = descriptors(serverPid);
            maxDescriptors = Math.max(maxDescriptors, descriptors);
            System.out.printf(
                    Locale.ROOT, "probe %d: %s in %d ms, server descriptors %d%n", i, outcome, millis, descriptors);
            long left = every.toMillis() - millis;
            if (left > 0) {
                Thread.sleep(left); // the probes' pace, not a wait for a state
            }
        }
        List<Long> sorted = latencies.stream().sorted().toList();
        System.out.printf(
                Locale.ROOT,
                "probes: %d of %d failed; latency p50 %d ms, max %d ms; server descriptors at most %d%n",
                failed,
                probes,
                sorted.get(sorted.size() / 2),
                sorted.getLast(),
                maxDescriptors);
    }

    /** {@code 200}, another status, or why no answer came. */
    private static String probeOnce(URI uri) throws InterruptedException {
        // a new client (and connection) per probe, as a load balancer's health check opens one
        try (HttpClient client = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .version(HttpClient.Version.HTTP_1_1)
                .build()) {
            HttpResponse<String> answer = client.send(
                    HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(10))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return Integer.toString(answer.statusCode());
        } catch (IOException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** The open descriptors of a process; -1 when they cannot be counted (another user's process, or not Linux). */
    private static long descriptors(long pid) {
        try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.count();
        } catch (IOException e) {
            return -1;
        }
    }
}
