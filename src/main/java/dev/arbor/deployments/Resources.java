package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import dev.arbor.clusters.Workloads;
import java.util.Optional;

/**
 * What each replica of a deployment asks for: processors, memory and GPUs (of one type, when it names one). An amount
 * left out is the cluster's default: on Kubernetes {@link #DEFAULT_CPU} processors and {@link #DEFAULT_MEMORY_BYTES}.
 */
record Resources(Optional<Double> cpu, Optional<Long> memoryBytes, int gpus, Optional<String> gpuType) {
    static final double MAX_CPU = 256;
    /** The smallest amount of memory a serving process can start in. */
    static final long MIN_MEMORY_BYTES = 64L << 20;

    static final long MAX_MEMORY_BYTES = 4L << 40;
    static final int MAX_GPUS = 16;
    static final int MAX_GPU_TYPE = 100;
    static final double DEFAULT_CPU = 1.0;
    static final long DEFAULT_MEMORY_BYTES = 2L << 30;

    Resources {
        requireNonNull(cpu, "cpu");
        requireNonNull(memoryBytes, "memoryBytes");
        requireNonNull(gpuType, "gpuType");
    }

    /** What a pod asks the cluster for: these amounts, with the defaults where none was asked. */
    Workloads.Resources onKubernetes() {
        return new Workloads.Resources(
                cpu.orElse(DEFAULT_CPU), memoryBytes.orElse(DEFAULT_MEMORY_BYTES), gpus, gpuType);
    }
}
