package dev.arbor.models.engines;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The deterministic test engine: each option's weight comes from a hash of the state, the question and the option,
 * so the same input always gets the same answer and nothing is read or learnt. Load options make it slow or broken,
 * to exercise the runtime's failure paths: {@code load_delay_ms}, {@code score_delay_ms}, {@code fail_load}, and
 * per situation: a state containing {@code reject_marker} is refused as bad input, one containing
 * {@code crash_marker} ends the worker process.
 */
final class HashEngine implements Engine {
    private static final char SEPARATOR = '\u001f';

    private final long scoreDelayMillis;
    private final String rejectMarker;
    private final String crashMarker;

    private HashEngine(long scoreDelayMillis, String rejectMarker, String crashMarker) {
        this.scoreDelayMillis = scoreDelayMillis;
        this.rejectMarker = rejectMarker;
        this.crashMarker = crashMarker;
    }

    static HashEngine load(Map<String, String> options) throws InterruptedException {
        Thread.sleep(Long.parseLong(options.getOrDefault("load_delay_ms", "0")));
        if (Boolean.parseBoolean(options.getOrDefault("fail_load", "false"))) {
            throw new IllegalStateException("the model files are damaged (fail_load was set)");
        }
        return new HashEngine(
                Long.parseLong(options.getOrDefault("score_delay_ms", "0")),
                options.getOrDefault("reject_marker", ""),
                options.getOrDefault("crash_marker", ""));
    }

    @Override
    public Scoring.Answer score(Scoring.Request request) throws Exception {
        if (!rejectMarker.isEmpty() && request.state().contains(rejectMarker)) {
            throw new IllegalArgumentException("the situation contains the refused marker " + rejectMarker);
        }
        if (!crashMarker.isEmpty() && request.state().contains(crashMarker)) {
            Runtime.getRuntime().halt(70);
        }
        if (scoreDelayMillis > 0) {
            Thread.sleep(scoreDelayMillis);
        }
        var probabilities = new LinkedHashMap<String, List<Double>>();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        String media = String.join(",", request.media());
        for (Scoring.Question question : request.questions()) {
            var weights = new ArrayList<Double>();
            double total = 0;
            for (Scoring.Option option : question.options()) {
                String text = String.join(
                        String.valueOf(SEPARATOR),
                        request.state(),
                        media,
                        question.instructions(),
                        option.key(),
                        option.label());
                byte[] digest = sha.digest(text.getBytes(StandardCharsets.UTF_8));
                double fraction = (ByteBuffer.wrap(digest, 0, 4).getInt() & 0xFFFFFFFFL) / 4294967296.0;
                double weight = Math.pow(0.05 + fraction, 3);
                weights.add(weight);
                total += weight;
            }
            var normalised = new ArrayList<Double>();
            for (double weight : weights) {
                normalised.add(weight / total);
            }
            probabilities.put(question.key(), normalised);
        }
        return new Scoring.Answer(probabilities, request.state().length() / 4);
    }
}
