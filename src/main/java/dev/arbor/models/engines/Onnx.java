package dev.arbor.models.engines;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/** How the ONNX engines set up their tokenizer and session, the same for each. */
final class Onnx {
    private Onnx() {}

    /** A tokenizer that cuts a text at {@code maxTokens} and pads nothing (batches pad themselves). */
    static HuggingFaceTokenizer tokenizer(InputStream json, int maxTokens) throws IOException {
        return HuggingFaceTokenizer.newInstance(
                json, Map.of("maxLength", Integer.toString(maxTokens), "truncation", "true", "padding", "false"));
    }

    /** Half the cores for one model's arithmetic, and no spinning between requests. */
    static OrtSession.SessionOptions sessionOptions() throws OrtException {
        var options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
        // idle ONNX threads spin by default, taking the CPU the server needs to send the answer back
        options.addConfigEntry("session.intra_op.allow_spinning", "0");
        return options;
    }
}
