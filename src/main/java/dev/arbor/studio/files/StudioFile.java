package dev.arbor.studio.files;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * One media file: an upload, or bytes a decision or example sent inline and history kept.
 *
 * @param type {@code image}, {@code audio} or {@code video}
 * @param contentType the media type it is served with when it is safe to show, such as {@code image/png}
 * @param sha256 the hex SHA-256 of its bytes, which name its blob
 * @param expiresAtMillis when it goes unless a decision or example uses it
 */
public record StudioFile(
        String id,
        String purpose,
        String type,
        String contentType,
        Optional<String> name,
        long bytes,
        String sha256,
        long createdAtMillis,
        long expiresAtMillis) {
    public StudioFile {
        requireNonNull(id, "id");
        requireNonNull(purpose, "purpose");
        requireNonNull(type, "type");
        requireNonNull(contentType, "contentType");
        requireNonNull(name, "name");
        requireNonNull(sha256, "sha256");
    }
}
