package dev.arbor.clusters;

import static java.util.Objects.requireNonNull;

import dev.arbor.clusters.Workloads.ModelSource;
import dev.arbor.clusters.Workloads.Resources;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a deployment's pods run: vLLM when it asks for GPUs, the llama.cpp server when it does not, with the arguments
 * that load its model under the deployment's name (and, for an embedding model, serve embeddings). A model the chosen server cannot load is refused before the cluster
 * is asked for anything ({@code model_format_unsupported} at {@code model_id}).
 *
 * @param args the container's arguments: both images' entry points are their servers
 */
record Serving(Server server, String image, List<String> args) {
    /** The model hub's repository, as the registry writes it: {@code owner/name}, or {@code owner/name@revision}. */
    private static final Pattern HUB =
            Pattern.compile("([A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*)(?:@(.+))?");

    private static final Pattern GGUF_URL = Pattern.compile("https?://\\S+\\.gguf(\\?\\S*)?", Pattern.CASE_INSENSITIVE);

    /**
     * @param port where the server listens in its pod
     * @param inFlightMetric the server's gauge of requests it is working on, which an autoscaler keeps at its target
     */
    enum Server {
        VLLM(8000, "vllm:num_requests_running"),
        LLAMA_CPP(8080, "llamacpp:requests_processing");

        final int port;
        final String inFlightMetric;

        Server(int port, String inFlightMetric) {
            this.port = port;
            this.inFlightMetric = inFlightMetric;
        }
    }

    Serving {
        requireNonNull(server, "server");
        requireNonNull(image, "image");
        args = List.copyOf(args);
    }

    /** The server for these resources, loading {@code model} as {@code name}. */
    static Serving of(String name, ModelSource model, Resources resources, ClusterSettings settings) {
        String format = model.format().toLowerCase(Locale.ROOT);
        boolean embeds = model.purpose() == Workloads.Purpose.EMBED;
        if (resources.gpus() > 0) {
            // an embedding model of the hub is a transformer whose repository holds its weights beside the ONNX
            // export this registry runs locally: vLLM loads those weights
            if (!format.equals("safetensors") && !format.equals("gguf") && !(embeds && format.equals("onnx"))) {
                throw refused(
                        model,
                        "is in the format '" + model.format() + "', which vLLM (the server of "
                                + "deployments with GPUs) cannot load: it loads safetensors and gguf models, and "
                                + "embedding models of the model hub");
            }
            Matcher hub = HUB.matcher(model.uri());
            if (!hub.matches()) {
                throw refused(
                        model,
                        "comes from '" + model.uri() + "', which vLLM cannot load: a deployment's pods "
                                + "load models from the model hub (owner/name)");
            }
            var args = new ArrayList<>(List.of("--model", hub.group(1)));
            Optional.ofNullable(hub.group(2)).ifPresent(revision -> args.addAll(List.of("--revision", revision)));
            args.addAll(List.of("--served-model-name", name, "--port", Integer.toString(Server.VLLM.port)));
            if (embeds) {
                // vLLM's pooling runner, with the model converted to an embedder: it then answers /v1/embeddings
                args.addAll(List.of("--runner", "pooling", "--convert", "embed"));
            }
            if (resources.gpus() > 1) {
                args.addAll(List.of("--tensor-parallel-size", Integer.toString(resources.gpus())));
            }
            return new Serving(Server.VLLM, settings.servingImageGpu(), args);
        }
        if (!format.equals("gguf")) {
            throw refused(
                    model,
                    "is in the format '" + model.format() + "', which the llama.cpp server (the server "
                            + "of deployments without GPUs) cannot load: it loads gguf models; ask for GPUs to serve it "
                            + "with vLLM");
        }
        List<String> source;
        Matcher hub = HUB.matcher(model.uri());
        if (hub.matches() && hub.group(2) == null) {
            source = List.of("-hf", hub.group(1));
        } else if (hub.matches()) {
            throw refused(
                    model,
                    "names the revision '" + hub.group(2) + "', which the llama.cpp server cannot "
                            + "load: it loads a repository's newest files");
        } else if (GGUF_URL.matcher(model.uri()).matches()) {
            source = List.of("--model-url", model.uri());
        } else {
            throw refused(
                    model,
                    "comes from '" + model.uri() + "', which the llama.cpp server cannot load: a "
                            + "deployment's pods load models from the model hub (owner/name) or an http(s) URL of a .gguf "
                            + "file");
        }
        var args = new ArrayList<>(source);
        args.addAll(List.of(
                "--alias", name, "--port", Integer.toString(Server.LLAMA_CPP.port), "--host", "0.0.0.0", "--metrics"));
        if (embeds) {
            args.add("--embeddings");
        }
        return new Serving(Server.LLAMA_CPP, settings.servingImageCpu(), args);
    }

    private static ApiException refused(ModelSource model, String why) {
        return ApiException.of(ErrorCode.MODEL_FORMAT_UNSUPPORTED, "model_id", "Model " + model.id() + " " + why + ".");
    }
}
