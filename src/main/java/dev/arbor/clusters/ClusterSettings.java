package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

/**
 * How this machine's health is read, and what deployments on Kubernetes run.
 *
 * @param nvidiaSmi the command that lists this machine's GPUs ({@code ARBOR_NVIDIA_SMI}; {@code nvidia-smi} on the
 *     PATH by default): where there is none, the machine has no GPUs
 * @param servingImageGpu the image of a deployment's pods when it asks for GPUs: a vLLM OpenAI-compatible server
 *     ({@code ARBOR_SERVING_IMAGE_GPU}); pinned by tag, so that a deployment runs the server it was tested with
 * @param servingImageCpu the image of a deployment's pods without GPUs: a llama.cpp server
 *     ({@code ARBOR_SERVING_IMAGE_CPU}); pinned by tag likewise
 */
public record ClusterSettings(String nvidiaSmi, String servingImageGpu, String servingImageCpu) {
    public static final ClusterSettings DEFAULT =
            new ClusterSettings("nvidia-smi", "vllm/vllm-openai:v0.11.0", "ghcr.io/ggml-org/llama.cpp:server-b6700");

    public ClusterSettings {
        requireNonNull(nvidiaSmi, "nvidiaSmi");
        requireNonNull(servingImageGpu, "servingImageGpu");
        requireNonNull(servingImageCpu, "servingImageCpu");
    }
}
