package dev.arbor.pipelines.actions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.credentials.Credentials;
import dev.arbor.models.Model;
import dev.arbor.models.ModelOperations;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.references.ReferenceGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Optional;

/**
 * The model actions, on the model registry: Add Model (waits for the download), Add Cloud Model (its key from a
 * stored credential, never from the params), Delete Model, and Model Benchmark. Each is safe to run again after a
 * restart cut it off: a model added already from the same place is taken as added, one deleted already as deleted.
 */
final class ModelActions {
    /** Answers a benchmark measures, beside the one that warms the model up. */
    static final int BENCHMARK_CALLS = 50;

    private static final Duration WAIT_STEP = Duration.ofSeconds(30);

    private final ModelOperations models;
    private final Credentials credentials;

    ModelActions(ModelOperations models, Credentials credentials) {
        this.models = requireNonNull(models, "models");
        this.credentials = requireNonNull(credentials, "credentials");
    }

    Outcome add(ObjectNode params) throws InterruptedException {
        String uri = params.path("model_uri").asText();
        String source = params.path("model_source").asText();
        Model model;
        try {
            model = models.add(ModelOperations.addRequest(
                            uri, params.path("model_name").asText(), source))
                    .model();
        } catch (ApiException e) {
            Optional<Model> same = models.list().stream()
                    .filter(m -> e.code() == ErrorCode.MODEL_EXISTS
                            && m.uri().equals(uri)
                            && m.source().equals(source))
                    .findFirst();
            if (same.isEmpty()) {
                return failed(e);
            }
            model = same.get();
        }
        if (params.has("max_wait_seconds")) {
            model = models.awaitDownload(
                    model.id(),
                    Duration.ofSeconds(params.path("max_wait_seconds").asLong()));
        } else {
            while (model.status().equals("downloading") || model.status().equals("not_downloaded")) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                model = models.awaitDownload(model.id(), WAIT_STEP);
            }
        }
        if (model.status().equals("failed")) {
            return new Outcome.Failed(
                    "download_failed",
                    "The model's download failed: " + model.error().orElse("no reason given"),
                    true);
        }
        return new Outcome.Done(Json.object()
                .put("model_id", model.id())
                .put("model_name", model.name())
                .put("size_bytes", model.sizeBytes()));
    }

    Outcome addCloud(ObjectNode params) {
        Optional<String> key = Optional.empty();
        if (params.hasNonNull("api_key")) {
            String reference = params.path("api_key").asText();
            key = credentials.open(reference);
            if (key.isEmpty()) {
                return new Outcome.Failed(
                        "credential_not_found",
                        "There is no credential '" + reference
                                + "': store the key with POST /credentials and name it in api_key.",
                        false);
            }
        }
        try {
            models.add(ModelOperations.cloudRequest(
                    params.path("provider").asText(), params.path("model_id").asText(), key));
        } catch (ApiException e) {
            if (e.code() != ErrorCode.MODEL_EXISTS) {
                return failed(e);
            }
        }
        return new Outcome.Done(Json.object());
    }

    Outcome delete(ObjectNode params) {
        String id = params.path("model_id").asText();
        if (models.find(id).isEmpty()) {
            return new Outcome.Done(Json.object()); // gone already: a repeat of this step, or deleted by hand
        }
        try {
            models.delete(id, ReferenceGuard.WhenInUse.REFUSE); // a step never makes routers inactive
            return new Outcome.Done(Json.object());
        } catch (ApiException e) {
            return failed(e);
        }
    }

    Outcome benchmark(ObjectNode params) {
        var prompts = new ArrayList<String>();
        params.path("test_prompts").forEach(p -> prompts.add(p.asText()));
        var metrics = new ArrayList<String>();
        params.path("metrics").forEach(m -> metrics.add(m.asText()));
        boolean latency = metrics.isEmpty() || metrics.contains("latency");
        boolean throughput = metrics.isEmpty() || metrics.contains("throughput");
        ModelOperations.Benchmark result;
        try {
            result = models.benchmark(
                    params.path("model_id").asText(), prompts, Math.max(BENCHMARK_CALLS, prompts.size()));
        } catch (ApiException e) {
            return failed(e);
        }
        ObjectNode outputs = Json.object();
        if (latency) {
            outputs.put("latency_p50", round(result.latencyP50Millis()))
                    .put("latency_p99", round(result.latencyP99Millis()));
        } else {
            outputs.putNull("latency_p50").putNull("latency_p99");
        }
        if (throughput) {
            outputs.put("throughput", round(result.throughput()));
        } else {
            outputs.putNull("throughput");
        }
        return new Outcome.Done(outputs);
    }

    /** A refusal of the registry as a step failure: retried only when the registry was unavailable (503, 504). */
    private static Outcome.Failed failed(ApiException e) {
        return new Outcome.Failed(e.code().code(), e.problems().getFirst().message(), e.status() >= 503);
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
