package dev.arbor.keys;

import dev.arbor.platform.http.Schema;

/**
 * What an inference key has spent, as {@code GET /keys/{id}} shows it in its {@code spend}: told by the part of the
 * service that counts spend (which knows the keys, so the keys cannot know it but through this).
 */
public interface KeySpending {
    /** The spend of key {@code keyId}: a record the one JSON codec writes. */
    Record of(String keyId);

    /** The shape of {@link #of}'s answer, for the OpenAPI document. */
    Schema schema();
}
