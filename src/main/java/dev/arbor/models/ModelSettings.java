package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;

/**
 * How models are found, loaded and kept.
 *
 * @param testModels whether the deterministic test models are in the catalog
 * @param autoLoad whether a decision may start loading its model; when off, a decision on a model that is not loaded
 *     is {@code model_not_loaded}
 * @param timeout how long a model may take to answer before {@code model_timeout}
 * @param loadTimeout how long a decision waits for its model to load before {@code model_load_timeout}
 * @param hubUrl the model hub models are downloaded from (Hugging Face's layout and API)
 * @param downloads whether models may be downloaded
 * @param idle how long a loaded model may go unused before it is ejected; zero for never
 * @param memoryMb how much memory the model workers may hold together before the least recently used go; by default
 *     three quarters of the machine's
 */
public record ModelSettings(
        boolean testModels,
        boolean autoLoad,
        Duration timeout,
        Duration loadTimeout,
        String hubUrl,
        boolean downloads,
        Duration idle,
        Optional<Long> memoryMb) {
    public ModelSettings {
        requireNonNull(timeout, "timeout");
        requireNonNull(loadTimeout, "loadTimeout");
        requireNonNull(hubUrl, "hubUrl");
        requireNonNull(idle, "idle");
        requireNonNull(memoryMb, "memoryMb");
    }
}
