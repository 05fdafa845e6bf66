package dev.arbor.studio.planning;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.engines.Scoring;
import dev.arbor.platform.errors.Warning;
import dev.arbor.studio.history.Extensions;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.templates.Templates;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A checked decision, ready to run: everything the pipeline works out before the model (resolve, render, check).
 * A preview shows it; a decision runs it.
 *
 * @param situation the state as the model reads it, rendered to text once: sensitive values included
 * @param storedState the state as history keeps it: sensitive values replaced by {@code [redacted:<name>]}
 * @param storedSituation the stored state rendered to text, as history keeps it and search finds it
 * @param storedVariables the variables as history keeps them (sensitive ones as HMACs); empty without a template
 * @param secrets the HMAC of each sensitive variable, for erasing by value
 * @param model the model that answers; empty only when none is loaded and none can be (a preview then warns)
 * @param extensions what the caller added to or skipped of the template's questions
 * @param keepMedia whether history keeps the bytes of inline media (full storage, and the studio allows it)
 */
public record Plan(
        Optional<Templates.Resolved> template,
        String situation,
        JsonNode storedState,
        String storedSituation,
        Optional<ObjectNode> storedVariables,
        ObjectNode secrets,
        List<Question> questions,
        List<Scoring.Question> primitives,
        List<MediaInput> media,
        Optional<String> model,
        Optional<String> modelRequested,
        SettingsLadder.Effective settings,
        Extensions extensions,
        StoreLevel store,
        boolean keepMedia,
        boolean failOnStoreError,
        boolean background,
        ObjectNode metadata,
        Set<String> include,
        int estimatedTokens,
        List<Warning> warnings) {
    public Plan {
        requireNonNull(template, "template");
        requireNonNull(situation, "situation");
        requireNonNull(storedState, "storedState");
        requireNonNull(storedSituation, "storedSituation");
        questions = List.copyOf(questions);
        primitives = List.copyOf(primitives);
        media = List.copyOf(media);
        requireNonNull(model, "model");
        requireNonNull(settings, "settings");
        include = Set.copyOf(include);
        warnings = List.copyOf(warnings);
    }

    /** The same decision credited to a template version whose questions it asks (the wire format's header). */
    public Plan attributedTo(Templates.Resolved version, List<Question> attributedQuestions) {
        return new Plan(
                Optional.of(version),
                situation,
                storedState,
                storedSituation,
                storedVariables,
                secrets,
                attributedQuestions,
                primitives,
                media,
                model,
                modelRequested,
                settings,
                extensions,
                store,
                keepMedia,
                failOnStoreError,
                background,
                metadata,
                include,
                estimatedTokens,
                warnings);
    }
}
