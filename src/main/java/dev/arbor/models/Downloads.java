package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.engines.EngineKind;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Model files from a model hub (Hugging Face's layout and API, at a configurable base URL): which files an engine
 * needs, and their download as long work — in the background, with progress, resumable (a partial file continues
 * with an HTTP range), checked against the hub's SHA-256, and cancellable.
 */
public final class Downloads implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Downloads.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** Where a model's archive lands in its folder while it downloads. */
    private static final String ARCHIVE = ".archive.zip";

    /** One file of a repository: its path in the repository, its size and, for large files, its SHA-256. */
    record RemoteFile(String path, long size, Optional<String> sha256) {}

    /** How far a download has come. */
    record Progress(long bytesDone, long bytesTotal, int filesDone, int filesTotal) {}

    private record Running(
            AtomicLong done,
            long total,
            int files,
            AtomicLong filesDone,
            AtomicBoolean cancelled,
            CountDownLatch finished) {}

    private final Models models;
    private final OutboundClient client;
    private final Path root;
    private final String hub;
    private final boolean allowed;
    private final Map<String, Running> running = new ConcurrentHashMap<>();

    /**
     * @param hubUrl the model hub's base URL
     * @param allowed false under ARBOR_NO_DOWNLOADS
     */
    public Downloads(Models models, OutboundClient client, Path dataDir, String hubUrl, boolean allowed) {
        this.models = requireNonNull(models, "models");
        this.client = requireNonNull(client, "client");
        this.root = requireNonNull(dataDir, "dataDir").resolve("models");
        this.hub = requireNonNull(hubUrl, "hubUrl");
        this.allowed = allowed;
    }

    /** Where an added model's files go. */
    Path folder(String modelId) {
        return root.resolve(modelId);
    }

    /** 409 {@code downloads_disabled} while ARBOR_NO_DOWNLOADS is set. */
    void requireAllowed() {
        if (!allowed) {
            throw ApiException.of(
                    ErrorCode.DOWNLOADS_DISABLED,
                    "Downloads are turned off on this server "
                            + "(ARBOR_NO_DOWNLOADS=1); add a model from a local folder instead (model_source local).");
        }
    }

    /**
     * The files of {@code repository} (at {@code revision}) that {@code engine} needs; 400 {@code invalid_field} at
     * {@code model_uri} when the hub has no such repository or it lacks them.
     */
    List<RemoteFile> plan(String repository, String revision, String engine) {
        requireAllowed();
        URI tree = URI.create(hub + "/api/models/" + repository + "/tree/" + encode(revision) + "?recursive=true");
        HttpResponse<String> response = get(tree, Optional.empty(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404 || response.statusCode() == 401) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "model_uri",
                    "The model hub has no repository " + repository + " at " + revision + " (or it is private).");
        }
        if (response.statusCode() != 200) {
            throw unreachable(tree, "it answered " + response.statusCode());
        }
        var files = new ArrayList<RemoteFile>();
        for (JsonNode entry : Json.read(response.body())) {
            if (entry.path("type").asText().equals("file")) {
                JsonNode lfs = entry.path("lfs");
                files.add(new RemoteFile(
                        entry.path("path").asText(),
                        entry.path("size").asLong(),
                        Optional.ofNullable(lfs.path("oid").textValue())));
            }
        }
        return needed(files, engine, repository);
    }

    private static List<RemoteFile> needed(List<RemoteFile> files, String engine, String repository) {
        EngineKind kind = EngineKind.of(engine).orElseThrow();
        if (!kind.readsFiles()) {
            return files; // the test engine reads nothing: it takes the repository as it is
        }
        List<String> paths = kind.pick(files.stream().map(RemoteFile::path).collect(Collectors.toSet()))
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.INVALID_FIELD,
                        "model_uri",
                        "Repository " + repository + " holds no " + engine + " model: it needs " + kind.needs() + "."));
        return files.stream().filter(file -> paths.contains(file.path())).toList();
    }

    /** Starts (or resumes) a model's download from a hub in the background. */
    void start(Model model, String repository, String revision, List<RemoteFile> files) {
        long total = files.stream().mapToLong(RemoteFile::size).sum();
        run(model, total, files.size(), (folder, run) -> {
            for (RemoteFile file : files) {
                Path target = folder.resolve(file.path()).normalize();
                if (!target.startsWith(folder)) {
                    throw new IOException("the hub names a file outside the model's folder: " + file.path());
                }
                fetch(
                        URI.create(hub + "/" + repository + "/resolve/" + encode(revision) + "/" + file.path()),
                        target,
                        file.size(),
                        file.sha256(),
                        run);
                run.filesDone().incrementAndGet();
            }
        });
    }

    /**
     * The size of a model's zip archive at a URL (0 when the server does not say); 400 {@code invalid_field} at
     * {@code model_uri} when there is nothing there, 503 {@code model_hub_unavailable} when it cannot be reached.
     */
    long planArchive(URI uri) {
        requireAllowed();
        HttpResponse<Void> response = get(uri, Optional.of("bytes=0-0"), HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 404 || response.statusCode() == 410) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "model_uri",
                    "There is nothing at " + uri + " (" + response.statusCode() + ").");
        }
        if (response.statusCode() == 206) {
            return response.headers()
                    .firstValue("content-range")
                    .map(range -> range.replaceAll(".*/", ""))
                    .filter(total -> total.matches("\\d+"))
                    .map(Long::parseLong)
                    .orElse(0L);
        }
        if (response.statusCode() != 200) {
            throw unreachable(uri, "it answered " + response.statusCode());
        }
        return response.headers().firstValueAsLong("content-length").orElse(0L);
    }

    /**
     * Starts (or resumes) the download of a model's zip archive: checked against {@code sha256} when one was given,
     * unpacked into the model's folder (one top-level folder in the archive is taken as the model's), then the
     * engine's files are looked for.
     */
    void startArchive(Model model, URI uri, long size, Optional<String> sha256) {
        EngineKind kind = EngineKind.of(model.engine()).orElseThrow();
        run(model, size, 1, (folder, run) -> {
            Path archive = folder.resolve(ARCHIVE);
            fetch(uri, archive, size, sha256, run);
            ModelArchive.unpack(archive, folder);
            Files.delete(archive);
            if (kind.readsFiles() && !kind.foundIn(folder)) {
                throw new IOException("the archive holds no " + model.engine() + " model: it needs " + kind.needs());
            }
            run.filesDone().incrementAndGet();
        });
    }

    /** The work of one download, given the model's folder. */
    private interface Work {
        void run(Path folder, Running run) throws IOException;
    }

    private void run(Model model, long total, int files, Work work) {
        var run = new Running(
                new AtomicLong(), total, files, new AtomicLong(), new AtomicBoolean(), new CountDownLatch(1));
        if (running.putIfAbsent(model.id(), run) != null) {
            return; // already on its way
        }
        Model downloading = models.status(model, "downloading", Optional.empty(), total);
        Thread.ofVirtual().name("arbor-download-" + model.id()).start(() -> {
            try {
                work.run(folder(model.id()), run);
                long size = total > 0 ? total : run.done().get();
                models.status(downloading, "downloaded", Optional.empty(), size);
                LOG.info("model {} is downloaded ({} bytes)", model.id(), size);
            } catch (CancelledException e) {
                models.status(downloading, "not_downloaded", Optional.empty(), total);
            } catch (IOException | RuntimeException e) {
                LOG.warn("the download of model {} failed: {}", model.id(), e.getMessage());
                models.status(
                        downloading,
                        "failed",
                        Optional.of(e.getMessage() == null ? e.toString() : e.getMessage()),
                        total);
            } finally {
                running.remove(model.id());
                run.finished().countDown();
            }
        });
    }

    /** Waits up to {@code wait} for a model's download to end; returns the model as it then stands. */
    Model await(String modelId, Duration wait) {
        Running run = running.get(modelId);
        if (run != null && !wait.isZero()) {
            try {
                run.finished().await(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return models.require(modelId, "model_id");
    }

    Optional<Progress> progress(String modelId) {
        return Optional.ofNullable(running.get(modelId))
                .map(r -> new Progress(
                        r.done().get(), r.total(), (int) r.filesDone().get(), r.files()));
    }

    /** Stops a download; its partial files stay, so that the next start resumes. Returns whether one ran. */
    boolean cancel(String modelId) {
        Running run = running.get(modelId);
        if (run == null) {
            return false;
        }
        run.cancelled().set(true);
        return true;
    }

    /**
     * One file: a partial one continues where it stopped (an HTTP range), the whole is checked against its SHA-256
     * when one is known. {@code size} is 0 when the server did not say.
     */
    private void fetch(URI uri, Path target, long size, Optional<String> sha256, Running run) throws IOException {
        String name = target.getFileName().toString();
        if (size > 0 && Files.isRegularFile(target) && Files.size(target) == size) {
            run.done().addAndGet(size);
            return;
        }
        Files.createDirectories(target.getParent());
        Path partial = target.resolveSibling(name + ".partial");
        MessageDigest digest = sha256();
        long have = Files.isRegularFile(partial) ? Files.size(partial) : 0;
        if (size > 0 && have > size) {
            Files.delete(partial);
            have = 0;
        }
        HttpResponse<InputStream> response = get(
                uri,
                have > 0 ? Optional.of("bytes=" + have + "-") : Optional.empty(),
                HttpResponse.BodyHandlers.ofInputStream());
        boolean resumed = response.statusCode() == 206;
        if (!resumed && response.statusCode() != 200) {
            response.body().close();
            throw new IOException(uri + " answered " + response.statusCode());
        }
        if (resumed) {
            try (InputStream existing = Files.newInputStream(partial)) {
                digestAll(existing, digest);
            }
            run.done().addAndGet(have);
        }
        try (InputStream in = response.body();
                OutputStream out = Files.newOutputStream(
                        partial,
                        StandardOpenOption.CREATE,
                        resumed ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
            byte[] buffer = new byte[256 * 1024];
            for (int read; (read = in.read(buffer)) >= 0; ) {
                if (run.cancelled().get()) {
                    throw new CancelledException();
                }
                out.write(buffer, 0, read);
                digest.update(buffer, 0, read);
                run.done().addAndGet(read);
            }
        }
        if (size > 0 && Files.size(partial) != size) {
            throw new IOException(name + " ended after " + Files.size(partial) + " of " + size
                    + " bytes; start the download again to resume it");
        }
        String sha = HexFormat.of().formatHex(digest.digest());
        if (sha256.isPresent() && !sha256.get().equalsIgnoreCase(sha)) {
            Files.delete(partial);
            throw new IOException(name + " does not match its SHA-256 (" + sha256.get() + "); it was deleted, "
                    + "start the download again");
        }
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private <T> HttpResponse<T> get(URI uri, Optional<String> range, HttpResponse.BodyHandler<T> handler) {
        var request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET();
        range.ifPresent(r -> request.header("Range", r));
        try {
            return client.send(request.build(), handler);
        } catch (OutboundRefusedException e) {
            throw unreachable(uri, e.getMessage());
        } catch (IOException e) {
            throw unreachable(uri, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unreachable(uri, "interrupted");
        }
    }

    private ApiException unreachable(URI uri, String why) {
        String where = uri.toString().startsWith(hub) ? "The model hub at " + hub : uri.toString();
        return ApiException.of(ErrorCode.MODEL_HUB_UNAVAILABLE, "model_uri", where + " cannot be used: " + why + ".");
    }

    private static void digestAll(InputStream in, MessageDigest digest) throws IOException {
        byte[] buffer = new byte[256 * 1024];
        for (int read; (read = in.read(buffer)) >= 0; ) {
            digest.update(buffer, 0, read);
        }
    }

    private static String encode(String revision) {
        return URLEncoder.encode(revision, StandardCharsets.UTF_8);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Deletes a downloaded model's folder. */
    void deleteFiles(String modelId) {
        Path folder = folder(modelId);
        if (!Files.isDirectory(folder)) {
            return;
        }
        try (var files = Files.walk(folder)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            LOG.warn("could not delete every file of model {}: {}", modelId, e.toString());
        }
    }

    /** Stops every download (waiting a little for each to record it); their partial files wait for the next start. */
    @Override
    public void close() {
        var stopping = List.copyOf(running.values());
        stopping.forEach(run -> run.cancelled().set(true));
        for (Running run : stopping) {
            try {
                run.finished().await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static final class CancelledException extends RuntimeException {
        CancelledException() {
            super("cancelled", null, false, false);
        }
    }
}
