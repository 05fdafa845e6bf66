package dev.arbor.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * A tiny llama with random weights in the Hugging Face layout ({@code config.json}, {@code tokenizer.json},
 * {@code model.safetensors}, F32), written by the tests themselves: one layer, width 64, a byte-level vocabulary (three
 * special tokens, then one token per byte). It says nothing sensible; it lets the real loading and scoring run.
 */
public final class TinyLlama {
    public static final int VOCABULARY = 3 + 256;
    private static final int WIDTH = 64;
    private static final int HEADS = 4;
    private static final int FEED_FORWARD = 128;
    private static final ObjectMapper JSON = new ObjectMapper();

    private TinyLlama() {}

    public static void write(Path folder, long seed) throws IOException {
        Files.createDirectories(folder);
        Files.writeString(folder.resolve("config.json"), config().toPrettyString());
        Files.writeString(folder.resolve("tokenizer.json"), tokenizer().toPrettyString());
        Files.write(folder.resolve("model.safetensors"), weights(new Random(seed)));
    }

    private static ObjectNode config() {
        ObjectNode config = JSON.createObjectNode();
        config.putArray("architectures").add("LlamaForCausalLM");
        config.put("model_type", "llama")
                .put("hidden_size", WIDTH)
                .put("intermediate_size", FEED_FORWARD)
                .put("num_attention_heads", HEADS)
                .put("num_key_value_heads", HEADS)
                .put("num_hidden_layers", 1)
                .put("max_position_embeddings", 512)
                .put("rms_norm_eps", 1e-5)
                .put("rope_theta", 10000.0)
                .put("vocab_size", VOCABULARY)
                .put("bos_token_id", 1)
                .put("eos_token_id", 2)
                .put("hidden_act", "silu")
                .put("tie_word_embeddings", false)
                .put("torch_dtype", "float32");
        return config;
    }

    private static ObjectNode tokenizer() {
        ObjectNode tokenizer = JSON.createObjectNode().put("version", "1.0");
        ArrayNode added = tokenizer.putArray("added_tokens");
        String[] specials = {"<unk>", "<s>", "</s>"};
        for (int i = 0; i < specials.length; i++) {
            added.addObject()
                    .put("id", i)
                    .put("content", specials[i])
                    .put("single_word", false)
                    .put("lstrip", false)
                    .put("rstrip", false)
                    .put("normalized", false)
                    .put("special", true);
        }
        ObjectNode normalizer = tokenizer.putObject("normalizer").put("type", "Sequence");
        ArrayNode normalizers = normalizer.putArray("normalizers");
        normalizers.addObject().put("type", "Prepend").put("prepend", "\u2581");
        normalizers
                .addObject()
                .put("type", "Replace")
                .put("content", "\u2581")
                .putObject("pattern")
                .put("String", " ");
        tokenizer.putNull("pre_tokenizer");
        tokenizer.putNull("post_processor");
        ObjectNode decoder = tokenizer.putObject("decoder").put("type", "Sequence");
        ArrayNode decoders = decoder.putArray("decoders");
        decoders.addObject()
                .put("type", "Replace")
                .put("content", " ")
                .putObject("pattern")
                .put("String", "\u2581");
        decoders.addObject().put("type", "ByteFallback");
        decoders.addObject().put("type", "Fuse");
        ObjectNode model = tokenizer
                .putObject("model")
                .put("type", "BPE")
                .put("unk_token", "<unk>")
                .put("fuse_unk", true)
                .put("byte_fallback", true);
        model.putNull("dropout");
        ObjectNode vocabulary = model.putObject("vocab");
        for (int i = 0; i < specials.length; i++) {
            vocabulary.put(specials[i], i);
        }
        for (int b = 0; b < 256; b++) {
            vocabulary.put(String.format(Locale.ROOT, "<0x%02X>", b), 3 + b);
        }
        model.putArray("merges");
        return tokenizer;
    }

    private static byte[] weights(Random random) throws IOException {
        var tensors = new LinkedHashMap<String, int[]>();
        tensors.put("model.embed_tokens.weight", new int[] {VOCABULARY, WIDTH});
        String layer = "model.layers.0.";
        tensors.put(layer + "input_layernorm.weight", new int[] {WIDTH});
        for (String projection : new String[] {"q_proj", "k_proj", "v_proj", "o_proj"}) {
            tensors.put(layer + "self_attn." + projection + ".weight", new int[] {WIDTH, WIDTH});
        }
        tensors.put(layer + "post_attention_layernorm.weight", new int[] {WIDTH});
        tensors.put(layer + "mlp.gate_proj.weight", new int[] {FEED_FORWARD, WIDTH});
        tensors.put(layer + "mlp.up_proj.weight", new int[] {FEED_FORWARD, WIDTH});
        tensors.put(layer + "mlp.down_proj.weight", new int[] {WIDTH, FEED_FORWARD});
        tensors.put("model.norm.weight", new int[] {WIDTH});
        tensors.put("lm_head.weight", new int[] {VOCABULARY, WIDTH});

        ObjectNode header = JSON.createObjectNode();
        header.putObject("__metadata__").put("format", "pt");
        long offset = 0;
        var data = new LinkedHashMap<String, float[]>();
        for (Map.Entry<String, int[]> tensor : tensors.entrySet()) {
            int count = 1;
            for (int dimension : tensor.getValue()) {
                count *= dimension;
            }
            float[] values = new float[count];
            boolean norm = tensor.getKey().endsWith("norm.weight");
            for (int i = 0; i < count; i++) {
                values[i] = norm ? 1f : (float) (random.nextGaussian() * 0.2);
            }
            data.put(tensor.getKey(), values);
            ObjectNode entry = header.putObject(tensor.getKey()).put("dtype", "F32");
            ArrayNode shape = entry.putArray("shape");
            for (int dimension : tensor.getValue()) {
                shape.add(dimension);
            }
            entry.putArray("data_offsets").add(offset).add(offset + 4L * count);
            offset += 4L * count;
        }
        byte[] head = JSON.writeValueAsString(header).getBytes(StandardCharsets.UTF_8);
        int padded = (head.length + 7) / 8 * 8;
        ByteBuffer file = ByteBuffer.allocate(8 + padded + (int) offset).order(ByteOrder.LITTLE_ENDIAN);
        file.putLong(padded).put(head);
        for (int i = head.length; i < padded; i++) {
            file.put((byte) ' ');
        }
        data.values().forEach(values -> {
            for (float value : values) {
                file.putFloat(value);
            }
        });
        return file.array();
    }
}
