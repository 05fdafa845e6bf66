package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.arbor.models.engines.EngineKind;
import dev.arbor.platform.errors.Warning;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A model as the API shows it: the registry's entry with its status at run time, its worker's process while one
 * runs, its download's progress while it downloads, and, answering an add, the warnings about the body.
 *
 * @param uri what it was added from; null for a built-in model
 * @param apiKeySet for a remote model only, whether it has an API key (the key is never shown)
 */
@JsonPropertyOrder({
    "id",
    "object",
    "name",
    "source",
    "uri",
    "engine",
    "format",
    "options",
    "api_key_set",
    "modalities",
    "types",
    "max_options",
    "max_questions",
    "context_tokens",
    "notes",
    "size_bytes",
    "status",
    "error",
    "worker_pid",
    "download",
    "warnings"
})
record ModelView(
        String id,
        String name,
        String source,
        @Nullable String uri,
        String engine,
        String format,
        Map<String, String> options,

        @JsonProperty("api_key_set") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
        Boolean apiKeySet,

        List<String> modalities,
        List<String> types,
        @JsonProperty("max_options") int maxOptions,
        @JsonProperty("max_questions") int maxQuestions,
        @JsonProperty("context_tokens") int contextTokens,
        List<String> notes,
        @JsonProperty("size_bytes") long sizeBytes,
        String status,
        @Nullable String error,

        @JsonProperty("worker_pid") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
        Long workerPid,

        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Progress download,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable List<Warning> warnings) {

    /** {@code model} with its status at run time {@code status}, its worker's process and its download's progress. */
    static ModelView of(Model model, String status, Optional<Long> workerPid, Optional<Downloads.Progress> progress) {
        ModelFacts facts = model.facts();
        return new ModelView(
                model.id(),
                model.name(),
                model.source(),
                model.builtIn() ? null : model.uri(),
                model.engine(),
                model.format(),
                model.options(),
                model.engine().equals(EngineKind.REMOTE.wire()) ? model.apiKey().isPresent() : null,
                facts.modalities().stream().sorted(Models::modalityOrder).toList(),
                facts.types().stream().sorted().toList(),
                facts.maxOptions(),
                facts.maxQuestions(),
                facts.contextTokens(),
                facts.notes(),
                model.sizeBytes(),
                requireNonNull(status, "status"),
                model.error().orElse(null),
                workerPid.orElse(null),
                progress.map(Progress::of).orElse(null),
                null);
    }

    @JsonProperty("object")
    String object() {
        return "model";
    }

    /** The same view answering an add, with the warnings about its body. */
    ModelView withWarnings(List<Warning> bodyWarnings) {
        return new ModelView(
                id,
                name,
                source,
                uri,
                engine,
                format,
                options,
                apiKeySet,
                modalities,
                types,
                maxOptions,
                maxQuestions,
                contextTokens,
                notes,
                sizeBytes,
                status,
                error,
                workerPid,
                download,
                List.copyOf(bodyWarnings));
    }

    /** A download under way: bytes and files done of those it fetches. */
    record Progress(
            @JsonProperty("bytes_done") long bytesDone,
            @JsonProperty("bytes_total") long bytesTotal,
            @JsonProperty("files_done") int filesDone,
            @JsonProperty("files_total") int filesTotal) {
        static Progress of(Downloads.Progress progress) {
            return new Progress(
                    progress.bytesDone(), progress.bytesTotal(), progress.filesDone(), progress.filesTotal());
        }
    }

    /**
     * What a model's event stream says of its files: their status (and why they failed), with the bytes and files
     * done while they download.
     */
    @JsonPropertyOrder({"status", "error", "bytes_done", "bytes_total", "files_done", "files_total"})
    record FilesState(
            String status,
            @Nullable String error,

            @JsonProperty("bytes_done") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Long bytesDone,

            @JsonProperty("bytes_total") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Long bytesTotal,

            @JsonProperty("files_done") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Integer filesDone,

            @JsonProperty("files_total") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Integer filesTotal) {
        /** Progress shows only while the model downloads: the last counts can outlive the download by a moment. */
        static FilesState of(Model model, Optional<Downloads.Progress> progress) {
            Optional<Downloads.Progress> shown =
                    progress.filter(_ -> model.status().equals("downloading"));
            return new FilesState(
                    model.status(),
                    model.error().orElse(null),
                    shown.map(Downloads.Progress::bytesDone).orElse(null),
                    shown.map(Downloads.Progress::bytesTotal).orElse(null),
                    shown.map(Downloads.Progress::filesDone).orElse(null),
                    shown.map(Downloads.Progress::filesTotal).orElse(null));
        }
    }

    /** What a model's event stream says of its worker: its status, process while it runs, and why it failed. */
    @JsonPropertyOrder({"status", "worker_pid", "error"})
    record WorkerState(
            String status,
            @JsonProperty("worker_pid") @Nullable Long workerPid,
            @Nullable Failure error) {}

    /** Why a worker failed, as a decision on it would be told. */
    record Failure(String code, String message) {}

    /** The answer to a download's cancel. */
    @JsonPropertyOrder({"id", "object", "cancelled"})
    record Cancelled(String id, boolean cancelled) {
        @JsonProperty("object")
        String object() {
            return "model.download";
        }
    }

    /** The answer to an eject. */
    @JsonPropertyOrder({"id", "object", "ejected"})
    record Ejected(String id, boolean ejected) {
        @JsonProperty("object")
        String object() {
            return "model.ejected";
        }
    }

    /** The last lines of a model's worker log. */
    @JsonPropertyOrder({"id", "object", "lines"})
    record Logs(String id, List<String> lines) {
        @JsonProperty("object")
        String object() {
            return "model.logs";
        }
    }
}
