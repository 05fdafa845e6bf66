package dev.arbor.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/**
 * A sequence classifier with random weights, written as a real ONNX graph (the protobuf encoded here, no ONNX
 * library needed) beside the bundled MiniLM tokenizer and a {@code config.json}, as a model hub lays one out. Its
 * logits are {@code (Σ over unmasked tokens of word[id] + type[type id]) · w + b}, which {@link #logits} works out in
 * plain Java, so a test can check what an engine computes.
 */
public final class TinyClassifier {
    private static final int VOCABULARY = 30522;
    private static final int WIDTH = 8;

    private final float[][] word;
    private final float[][] type;
    private final float[][] w;
    private final float[] b;

    private TinyClassifier(int labels, long seed) {
        var random = new Random(seed);
        word = randomMatrix(random, VOCABULARY, WIDTH);
        type = randomMatrix(random, 2, WIDTH);
        w = randomMatrix(random, WIDTH, labels);
        b = randomMatrix(random, 1, labels)[0];
    }

    /** Writes a classifier with these labels (id2label in order; none for a one-output cross-encoder) to a folder. */
    public static TinyClassifier write(Path folder, List<String> labels, long seed) throws IOException {
        var model = new TinyClassifier(Math.max(1, labels.size()), seed);
        Files.createDirectories(folder.resolve("onnx"));
        Files.write(folder.resolve("onnx/model.onnx"), model.graph());
        try (InputStream tokenizer = TinyClassifier.class.getResourceAsStream("/all-minilm-l6-v2-q-tokenizer.json")) {
            Files.copy(tokenizer, folder.resolve("tokenizer.json"));
        }
        var config = new StringBuilder("{\"architectures\": [\"TinyForSequenceClassification\"], \"id2label\": {");
        for (int i = 0; i < labels.size(); i++) {
            config.append(i == 0 ? "" : ", ")
                    .append('"')
                    .append(i)
                    .append("\": \"")
                    .append(labels.get(i))
                    .append('"');
        }
        Files.writeString(folder.resolve("config.json"), config.append("}}").toString());
        return model;
    }

    /** The logits the graph gives one encoded sequence. */
    public double[] logits(long[] ids, long[] typeIds, long[] mask) {
        double[] pooled = new double[WIDTH];
        for (int t = 0; t < ids.length; t++) {
            if (mask[t] == 0) {
                continue;
            }
            for (int d = 0; d < WIDTH; d++) {
                pooled[d] += word[(int) ids[t]][d] + type[(int) typeIds[t]][d];
            }
        }
        double[] logits = new double[b.length];
        for (int l = 0; l < b.length; l++) {
            logits[l] = b[l];
            for (int d = 0; d < WIDTH; d++) {
                logits[l] += pooled[d] * w[d][l];
            }
        }
        return logits;
    }

    private byte[] graph() {
        var graph = new Proto()
                .message(1, node("Gather", List.of("word", "input_ids"), "word_embedded"))
                .message(1, node("Gather", List.of("type", "token_type_ids"), "type_embedded"))
                .message(1, node("Add", List.of("word_embedded", "type_embedded"), "embedded"))
                .message(
                        1, node("Cast", List.of("attention_mask"), "mask_float").message(5, intAttribute("to", 1)))
                .message(1, node("Unsqueeze", List.of("mask_float", "axis_2"), "mask_3d"))
                .message(1, node("Mul", List.of("embedded", "mask_3d"), "masked"))
                .message(
                        1,
                        node("ReduceSum", List.of("masked", "axis_1"), "pooled")
                                .message(5, intAttribute("keepdims", 0)))
                .message(1, node("MatMul", List.of("pooled", "w"), "scaled"))
                .message(1, node("Add", List.of("scaled", "b"), "logits"))
                .string(2, "tiny-classifier")
                .message(5, matrix("word", word))
                .message(5, matrix("type", type))
                .message(5, matrix("w", w))
                .message(5, tensor("b", new long[] {b.length}, b))
                .message(5, longs("axis_1", 1))
                .message(5, longs("axis_2", 2))
                .message(11, input("input_ids", 7))
                .message(11, input("attention_mask", 7))
                .message(11, input("token_type_ids", 7))
                .message(12, value("logits", 1, List.of("batch"), b.length));
        return new Proto()
                .varint(1, 8) // IR version
                .string(2, "arbor-tests")
                .message(7, graph)
                .message(8, new Proto().string(1, "").varint(2, 13)) // opset 13
                .bytes();
    }

    private static Proto node(String op, List<String> inputs, String output) {
        var node = new Proto();
        inputs.forEach(input -> node.string(1, input));
        return node.string(2, output).string(3, output).string(4, op);
    }

    private static Proto intAttribute(String name, long value) {
        return new Proto().string(1, name).varint(3, value).varint(20, 2);
    }

    private static Proto matrix(String name, float[][] rows) {
        float[] flat = new float[rows.length * rows[0].length];
        for (int r = 0; r < rows.length; r++) {
            System.arraycopy(rows[r], 0, flat, r * rows[0].length, rows[0].length);
        }
        return tensor(name, new long[] {rows.length, rows[0].length}, flat);
    }

    private static Proto tensor(String name, long[] dims, float[] values) {
        var raw = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            raw.putFloat(v);
        }
        var tensor = new Proto();
        for (long dim : dims) {
            tensor.varint(1, dim);
        }
        return tensor.varint(2, 1).string(8, name).bytes(9, raw.array());
    }

    private static Proto longs(String name, long value) {
        var raw = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value);
        return new Proto().varint(1, 1).varint(2, 7).string(8, name).bytes(9, raw.array());
    }

    private static Proto input(String name, int elementType) {
        return value(name, elementType, List.of("batch", "sequence"), 0);
    }

    /** A tensor value of symbolic dimensions, then one fixed one when {@code last} is positive. */
    private static Proto value(String name, int elementType, List<String> symbolic, int last) {
        var shape = new Proto();
        symbolic.forEach(dim -> shape.message(1, new Proto().string(2, dim)));
        if (last > 0) {
            shape.message(1, new Proto().varint(1, last));
        }
        var tensor = new Proto().varint(1, elementType).message(2, shape);
        return new Proto().string(1, name).message(2, new Proto().message(1, tensor));
    }

    private static float[][] randomMatrix(Random random, int rows, int columns) {
        float[][] values = new float[rows][columns];
        for (float[] row : values) {
            for (int c = 0; c < columns; c++) {
                row[c] = (float) (random.nextGaussian() * 0.5);
            }
        }
        return values;
    }

    /** Protocol-buffer fields, written in the order given. */
    private static final class Proto {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Proto varint(int field, long value) {
            tag(field, 0);
            unsigned(value);
            return this;
        }

        Proto string(int field, String value) {
            return bytes(field, value.getBytes(StandardCharsets.UTF_8));
        }

        Proto bytes(int field, byte[] value) {
            tag(field, 2);
            unsigned(value.length);
            out.writeBytes(value);
            return this;
        }

        Proto message(int field, Proto value) {
            return bytes(field, value.bytes());
        }

        byte[] bytes() {
            return out.toByteArray();
        }

        private void tag(int field, int wireType) {
            unsigned(((long) field << 3) | wireType);
        }

        private void unsigned(long value) {
            while ((value & ~0x7FL) != 0) {
                out.write((int) ((value & 0x7F) | 0x80));
                value >>>= 7;
            }
            out.write((int) value);
        }
    }
}
