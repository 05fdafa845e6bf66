package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * This machine as the {@code local} cluster: one node, its processors, its free memory as the operating system counts
 * it, the disk of the data folder and its NVIDIA GPUs (from {@code nvidia-smi}, when there is one).
 *
 * <p>Degraded under {@link #LOW_MEMORY_SHARE} of the memory free, under {@link #LOW_DISK_BYTES} or
 * {@link #LOW_DISK_SHARE} of the data folder's disk free, or when {@code nvidia-smi} is there but fails; unhealthy
 * under {@link #NO_DISK_BYTES} free, when the database can no longer be written to.
 */
final class LocalMachine {
    static final double LOW_MEMORY_SHARE = 0.05;
    static final long LOW_DISK_BYTES = 2L << 30;
    static final double LOW_DISK_SHARE = 0.05;
    static final long NO_DISK_BYTES = 256L << 20;

    private static final long MIB = 1L << 20;
    private static final int MAX_GPU_OUTPUT = 64 * 1024;

    private final Path dataDir;
    private final ClusterSettings settings;

    LocalMachine(Path dataDir, ClusterSettings settings) {
        this.dataDir = requireNonNull(dataDir, "dataDir");
        this.settings = requireNonNull(settings, "settings");
    }

    ClusterHealth check(Duration timeout) {
        var reasons = new ArrayList<String>();
        ClusterHealth.Status status = ClusterHealth.Status.HEALTHY;

        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long total = os.getTotalMemorySize();
        long free = os.getFreeMemorySize();
        if (free < total * LOW_MEMORY_SHARE) {
            status = status.worse(ClusterHealth.Status.DEGRADED);
            reasons.add("low memory: " + free / MIB + " MiB free of " + total / MIB + " MiB (under "
                    + percent(LOW_MEMORY_SHARE) + ")");
        }

        try {
            var store = Files.getFileStore(dataDir);
            long usable = store.getUsableSpace();
            long size = store.getTotalSpace();
            String disk = "the data folder's disk has " + usable / MIB + " MiB free of " + size / MIB + " MiB";
            if (usable < NO_DISK_BYTES) {
                status = status.worse(ClusterHealth.Status.UNHEALTHY);
                reasons.add(disk + " (under " + NO_DISK_BYTES / MIB + " MiB: writes will fail)");
            } else if (usable < LOW_DISK_BYTES || usable < size * LOW_DISK_SHARE) {
                status = status.worse(ClusterHealth.Status.DEGRADED);
                reasons.add(disk + " (under " + LOW_DISK_BYTES / MIB + " MiB or " + percent(LOW_DISK_SHARE) + ")");
            }
        } catch (IOException e) {
            status = status.worse(ClusterHealth.Status.DEGRADED);
            reasons.add("the data folder's disk cannot be read: " + e.getMessage());
        }

        var gpus = new ArrayList<ClusterHealth.Gpu>();
        switch (gpus(timeout)) {
            case GpuReading.Absent absent -> {}
            case GpuReading.Read read -> gpus.addAll(read.gpus());
            case GpuReading.Failed failed -> {
                status = status.worse(ClusterHealth.Status.DEGRADED);
                reasons.add(failed.reason());
            }
        }
        var machine = new ClusterHealth.Resources(Runtime.getRuntime().availableProcessors(), free, gpus);
        return new ClusterHealth(status, 1, machine, List.of(machine), reasons);
    }

    /** What {@code nvidia-smi} said: no such command, its GPUs, or why it failed. */
    sealed interface GpuReading {
        record Absent() implements GpuReading {}

        record Read(List<ClusterHealth.Gpu> gpus) implements GpuReading {}

        record Failed(String reason) implements GpuReading {}
    }

    GpuReading gpus(Duration timeout) {
        Process process;
        try {
            process = new ProcessBuilder(
                            settings.nvidiaSmi(),
                            "--query-gpu=name,memory.total,memory.used",
                            "--format=csv,noheader,nounits")
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            return new GpuReading.Absent(); // no NVIDIA driver on this machine
        }
        try {
            process.getOutputStream().close();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                return new GpuReading.Failed("nvidia-smi did not answer within " + timeout.toSeconds() + " seconds");
            }
            String output;
            try (InputStream in = process.getInputStream()) {
                output = new String(in.readNBytes(MAX_GPU_OUTPUT), StandardCharsets.UTF_8);
            }
            if (process.exitValue() != 0) {
                return new GpuReading.Failed(
                        "nvidia-smi failed (exit " + process.exitValue() + "): " + firstLine(output));
            }
            return parse(output);
        } catch (IOException e) {
            return new GpuReading.Failed("nvidia-smi's output cannot be read: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return new GpuReading.Failed("the check was interrupted while nvidia-smi ran");
        }
    }

    /** Lines of {@code name, total MiB, used MiB}; the memory a GPU has free is what new work may use. */
    static GpuReading parse(String output) {
        var gpus = new ArrayList<ClusterHealth.Gpu>();
        for (String line : output.strip().lines().toList()) {
            if (line.isBlank()) {
                continue;
            }
            String[] fields = line.split(",");
            try {
                if (fields.length != 3) {
                    throw new NumberFormatException();
                }
                long totalMib = Long.parseLong(fields[1].strip());
                long usedMib = Long.parseLong(fields[2].strip());
                gpus.add(new ClusterHealth.Gpu(fields[0].strip(), Math.max(0, totalMib - usedMib) * MIB));
            } catch (NumberFormatException e) {
                return new GpuReading.Failed(
                        "nvidia-smi printed a line that is not name, total and used memory: '" + firstLine(line) + "'");
            }
        }
        return new GpuReading.Read(gpus);
    }

    private static String firstLine(String output) {
        String stripped = output.strip();
        String line =
                stripped.isEmpty() ? "no output" : stripped.lines().findFirst().orElseThrow();
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }

    private static String percent(double share) {
        return Math.round(share * 100) + "%";
    }
}
