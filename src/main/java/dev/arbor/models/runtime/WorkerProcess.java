package dev.arbor.models.runtime;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.engines.EngineKind;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.workers.Worker;
import dev.arbor.models.workers.WorkerLink;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker process ({@link Worker}) as the server started it, and its link once it said it is ready. The studio's
 * one worker per model ({@link ModelRuntime}) and the replicas of a replica set ({@link Replicas}) both start theirs
 * through {@link Launcher}: the same command, the same first line, the same failures.
 */
final class WorkerProcess {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerProcess.class);

    final Process process;
    /** Completed with the link when the worker is ready; exceptionally with why it is not, when it cannot be. */
    final CompletableFuture<WorkerLink> link = new CompletableFuture<>();

    final long startedAtMillis = System.currentTimeMillis();
    /** When it became ready; zero before. */
    volatile long loadedAtMillis;

    private WorkerProcess(Process process) {
        this.process = process;
    }

    /** Asks the process to stop, and ends it forcibly after five seconds; returns once it is gone. */
    void stop() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        var _ = link.thenAccept(WorkerLink::close); // a link that failed has nothing to close
    }

    static String exitReason(int code) {
        return code == 137 || code == 143 || code < 0
                ? "killed, exit code " + code + ", often for lack of memory"
                : "exit code " + code;
    }

    /** Starts workers: the command line, the environment the registry gives a model, where logs and caches go. */
    static final class Launcher {
        private final Path logDir;
        private final Path cacheDir;
        /** Written once: replicas start side by side, and a file being rewritten may be read half-written. */
        private Optional<Path> classPathFile = Optional.empty();

        Launcher(Path logDir, Path cacheDir) {
            this.logDir = requireNonNull(logDir, "logDir");
            this.cacheDir = requireNonNull(cacheDir, "cacheDir");
        }

        /** Where the studio's worker for a model writes its log. */
        Path workerLog(String modelId) {
            return logDir.resolve("worker-" + fileSafe(modelId) + ".log");
        }

        /** Where replica {@code index} of the replica set {@code name} writes its log. */
        Path replicaLog(String name, int index) {
            return logDir.resolve("replica-" + fileSafe(name) + "-" + index + ".log");
        }

        private static String fileSafe(String name) {
            return name.replaceAll("[^A-Za-z0-9._-]", "_");
        }

        /**
         * Starts a worker for {@code model} with its options and these ({@code options} win), in a JVM held to
         * {@code limits}, its standard error appended to {@code log}; {@code replica} (a set's name and the index) is shown in process lists.
         * {@code atReady} runs as the worker says it is ready, before anyone waiting for its link is told.
         */
        WorkerProcess start(
                RunnableModel model,
                Map<String, String> options,
                ReplicaSet.WorkerLimits limits,
                Path log,
                Optional<String> replica,
                Consumer<WorkerProcess> atReady) {
            Process process;
            try {
                var command = new ArrayList<String>();
                command.add(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString());
                command.add("--enable-native-access=ALL-UNNAMED");
                if (EngineKind.of(model.engine())
                        .filter(kind -> kind == EngineKind.CAUSAL_LM)
                        .isPresent()) {
                    // Jlama's vector arithmetic; other workers go without, and without the JVM's warning about it
                    command.add("--add-modules=jdk.incubator.vector");
                }
                command.add("-XX:+ExitOnOutOfMemoryError");
                command.addAll(limits.jvmOptions());
                // the tokenizer library unpacks its native code here, not in the user's home; it never downloads
                command.add("-DDJL_CACHE_DIR=" + cacheDir.resolve("djl"));
                command.add("-Dai.djl.offline=true");
                // the worker's temporary files (its socket's folder, ONNX Runtime's unpacked library) go where the
                // server's go, so that a server given its own temporary folder keeps its workers' there too
                command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
                command.add("@" + classPathFile());
                command.add("dev.arbor.Arbor");
                command.add("worker");
                command.add("--model");
                command.add(model.id());
                replica.ifPresent(name -> {
                    command.add("--replica");
                    command.add(name);
                });
                command.add("--engine");
                command.add(model.engine());
                var all = new LinkedHashMap<>(model.options());
                all.putAll(options);
                model.path().ifPresent(folder -> all.put("path", folder.toString()));
                model.url().ifPresent(url -> all.put("url", url));
                all.forEach((key, value) -> {
                    command.add("--option");
                    command.add(key + "=" + value);
                });
                Files.createDirectories(logDir);
                var builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
                builder.environment().putAll(model.environment());
                process = builder.start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start a worker for " + model.id(), e);
            }
            var worker = new WorkerProcess(process);
            String name = replica.map(r -> "replica " + r + " of " + model.id()).orElse(model.id());
            String logs = replica.isPresent()
                    ? "see its log, " + logDir.getFileName().resolve(log.getFileName())
                    : "see GET /models/" + model.id() + "/logs";
            // a platform thread: it sits in a blocking read of the pipe for the worker's life, which would hold a
            // virtual thread's carrier all that time (two replicas on two cores held them all)
            Thread.ofPlatform()
                    .daemon()
                    .name("arbor-worker-" + replica.orElse(model.id()))
                    .start(() -> readFirstLine(name, logs, worker, atReady));
            LOG.info("starting a worker for {} (pid {})", name, process.pid());
            return worker;
        }

        private static void readFirstLine(
                String name, String logs, WorkerProcess worker, Consumer<WorkerProcess> atReady) {
            try (var out = new BufferedReader(
                    new InputStreamReader(worker.process.getInputStream(), StandardCharsets.UTF_8))) {
                String line = out.readLine();
                if (line != null && line.startsWith(Worker.READY)) {
                    worker.loadedAtMillis = System.currentTimeMillis();
                    atReady.accept(worker);
                    var link = new WorkerLink(
                            Path.of(line.substring(Worker.READY.length()).trim()));
                    if (!worker.link.complete(link)) {
                        link.close(); // stopped as it became ready: nobody else will close it
                    }
                    LOG.info("{} is loaded ({} ms)", name, worker.loadedAtMillis - worker.startedAtMillis);
                } else if (line != null && line.startsWith(Worker.FAILED)) {
                    worker.link.completeExceptionally(
                            new IllegalStateException(line.substring(Worker.FAILED.length())));
                } else {
                    worker.process.waitFor(5, TimeUnit.SECONDS);
                    worker.link.completeExceptionally(new IllegalStateException("the worker exited while loading ("
                            + (worker.process.isAlive() ? "no answer" : exitReason(worker.process.exitValue()))
                            + "); " + logs));
                }
                while (out.readLine() != null) {
                    // drain, so that the worker never blocks on a full pipe
                }
            } catch (IOException | InterruptedException | InvalidPathException e) {
                worker.link.completeExceptionally(
                        new IllegalStateException("lost contact with the worker: " + e.getMessage()));
            }
        }

        /**
         * The class path as a JVM argument file. A long command line crashes the tokenizer's native library as it
         * loads (seen with a test class path of 90 entries); a short one with the path in a file does not.
         */
        private synchronized Path classPathFile() throws IOException {
            if (classPathFile.isPresent()) {
                return classPathFile.get();
            }
            Files.createDirectories(cacheDir);
            Path file = cacheDir.resolve("worker-classpath.args");
            String classPath =
                    System.getProperty("java.class.path").replace("\\", "\\\\").replace("\"", "\\\"");
            Files.writeString(file, "-cp \"" + classPath + "\"\n", StandardCharsets.UTF_8);
            classPathFile = Optional.of(file);
            return file;
        }
    }
}
