package dev.arbor.models;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;

import dev.arbor.platform.http.Schema;

/** The shapes of the model registry, for the OpenAPI document. */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema MODEL = named(
            "Model",
            resource("model")
                    .required("name", string())
                    .required("source", string())
                    .required("uri", nullable(string()))
                    .required("engine", string())
                    .required("format", oneOf("onnx", "safetensors", "gguf", "remote"))
                    .required("options", mapOf(any()))
                    .required("modalities", arrayOf(string()))
                    .required("types", arrayOf(string()))
                    .required("max_options", integer())
                    .required("max_questions", integer())
                    .required("context_tokens", integer())
                    .required("notes", arrayOf(string()))
                    .required("size_bytes", integer())
                    .required("status", string())
                    .required("error", nullable(any("What went wrong, when it did.")))
                    .optional("worker_pid", integer(1, Long.MAX_VALUE))
                    .optional(
                            "download",
                            object().required("bytes_done", integer(0, Long.MAX_VALUE))
                                    .required("bytes_total", integer(0, Long.MAX_VALUE))
                                    .required("files_done", integer(0, Integer.MAX_VALUE))
                                    .required("files_total", integer(0, Integer.MAX_VALUE))));
    static final Schema DOWNLOAD_CANCELLED = object().required("id", string())
            .required("object", oneOf("model.download"))
            .required("cancelled", bool());
    static final Schema DELETED = object().required("id", string())
            .required("object", oneOf("model.deleted"))
            .required("deleted", bool())
            .required("warnings", Schema.arrayOf(Schema.any()));
    static final Schema EJECTED = object().required("id", string())
            .required("object", oneOf("model.ejected"))
            .required("ejected", bool());
    static final Schema LOGS = object().required("id", string())
            .required("object", oneOf("model.logs"))
            .required("lines", arrayOf(string()));
}
