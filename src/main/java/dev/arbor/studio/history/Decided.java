package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.studio.questions.Answer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A decision as the running code makes it and the API shows it (without input, metadata and pin, which history adds):
 * {@link DecidedCodec} writes it to the wire and to history's column, and reads it back.
 *
 * @param createdAt when it was asked, in seconds since the epoch
 * @param completedAt when it finished, in seconds since the epoch; empty while queued or running
 * @param model the model that answers; empty only when none was loaded and none could be
 * @param modelRequested the model the request named
 * @param answered the answers, once it completed
 * @param inputTokens what the model read (estimated until it answers)
 * @param store what history keeps of it
 */
public record Decided(
        String id,
        DecisionStatus status,
        long createdAt,
        Optional<Long> completedAt,
        Optional<Template> template,
        Optional<String> model,
        Optional<String> modelRequested,
        Extensions extensions,
        Optional<Answered> answered,
        AppliedSettings settings,
        int inputTokens,
        Timing timing,
        List<Warning> warnings,
        Caller source,
        Optional<String> rerunOf,
        StoreLevel store,
        Optional<Failure> error) {
    public Decided {
        requireNonNull(id, "id");
        requireNonNull(status, "status");
        requireNonNull(completedAt, "completedAt");
        requireNonNull(template, "template");
        requireNonNull(model, "model");
        requireNonNull(modelRequested, "modelRequested");
        requireNonNull(extensions, "extensions");
        requireNonNull(answered, "answered");
        requireNonNull(settings, "settings");
        requireNonNull(timing, "timing");
        warnings = List.copyOf(warnings);
        requireNonNull(source, "source");
        requireNonNull(rerunOf, "rerunOf");
        requireNonNull(store, "store");
        requireNonNull(error, "error");
    }

    /**
     * The template version a decision asked.
     *
     * @param ref the reference as the caller gave it
     * @param resolvedFrom how the reference named the version: {@code latest}, {@code pinned} or {@code alias}
     * @param attribution how the template was named: {@code explicit} or {@code header}
     */
    public record Template(String id, int version, String ref, String resolvedFrom, String attribution) {
        public Template {
            requireNonNull(id, "id");
            requireNonNull(ref, "ref");
            requireNonNull(resolvedFrom, "resolvedFrom");
            requireNonNull(attribution, "attribution");
        }

        /** The reference that names this very version. */
        public String pinned() {
            return id + "@" + version;
        }
    }

    /**
     * What a completed decision answered.
     *
     * @param answers by question key, in question order
     * @param act whether every answer acts
     * @param needsReview the keys whose answer does not act, in question order
     * @param raw the probabilities before calibration, by question key and option (multi: by option), six decimals
     */
    public record Answered(
            Map<String, Answer> answers, boolean act, List<String> needsReview, Map<String, Map<String, Double>> raw) {
        public Answered {
            answers = Collections.unmodifiableMap(new LinkedHashMap<>(answers));
            needsReview = List.copyOf(needsReview);
            var copy = new LinkedHashMap<String, Map<String, Double>>();
            raw.forEach((key, own) -> copy.put(key, Collections.unmodifiableMap(new LinkedHashMap<>(own))));
            raw = Collections.unmodifiableMap(copy);
        }

        /** The first question's answer; a decision asks at least one. */
        public Optional<Answer> first() {
            return answers.values().stream().findFirst();
        }
    }

    /** Milliseconds spent queued, loading the model, at the model, and in all. */
    public record Timing(double queueMs, double loadMs, double modelMs, double totalMs) {
        public static final Timing NONE = new Timing(0, 0, 0, 0);
    }

    /** Who asked: {@code surface} ({@code api}, {@code wire}, {@code rerun}, ...), the path, the request's id. */
    public record Caller(String surface, String endpoint, String requestId) {
        public Caller {
            requireNonNull(surface, "surface");
            requireNonNull(endpoint, "endpoint");
            requireNonNull(requestId, "requestId");
        }
    }

    /** Why a decision failed, as its {@code error} shows it. */
    public record Failure(String type, String code, String message) {
        public Failure {
            requireNonNull(type, "type");
            requireNonNull(code, "code");
            requireNonNull(message, "message");
        }

        public static Failure of(ErrorCode code, String message) {
            return new Failure(code.type(), code.code(), message);
        }
    }

    /** Whether history keeps it (the id then names it there). */
    public boolean kept() {
        return store != StoreLevel.NONE;
    }

    /** The same decision in another status, finished at {@code completedAt} (seconds) when that is given. */
    public Decided withStatus(DecisionStatus next, Optional<Long> completed, Optional<Failure> failure) {
        return new Decided(
                id,
                next,
                createdAt,
                completed.or(() -> completedAt),
                template,
                model,
                modelRequested,
                extensions,
                answered,
                settings,
                inputTokens,
                timing,
                warnings,
                source,
                rerunOf,
                store,
                failure.or(() -> error));
    }

    /** The same decision, showing {@code shown} as its warnings and {@code level} as what history keeps of it. */
    public Decided withWarnings(List<Warning> shown, StoreLevel level) {
        return new Decided(
                id,
                status,
                createdAt,
                completedAt,
                template,
                model,
                modelRequested,
                extensions,
                answered,
                settings,
                inputTokens,
                timing,
                shown,
                source,
                rerunOf,
                level,
                error);
    }
}
