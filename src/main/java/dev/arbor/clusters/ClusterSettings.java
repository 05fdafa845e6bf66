package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

/**
 * How this machine's health is read.
 *
 * @param nvidiaSmi the command that lists this machine's GPUs ({@code ARBOR_NVIDIA_SMI}; {@code nvidia-smi} on the
 *     PATH by default): where there is none, the machine has no GPUs
 */
public record ClusterSettings(String nvidiaSmi) {
    public static final ClusterSettings DEFAULT = new ClusterSettings("nvidia-smi");

    public ClusterSettings {
        requireNonNull(nvidiaSmi, "nvidiaSmi");
    }
}
