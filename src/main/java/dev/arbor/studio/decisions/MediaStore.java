package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Media bytes kept with history, content-addressed: {@code blobs/sha256/<2 hex>/<hex>}, written once, so the same
 * picture sent a thousand times is one file.
 */
final class MediaStore {
    private final Path root;

    MediaStore(Path dataDir) {
        this.root = requireNonNull(dataDir, "dataDir").resolve("blobs").resolve("sha256");
    }

    /** Keeps the bytes under their hash (hex) unless they are there already. */
    void keep(String sha256Hex, byte[] bytes) {
        Path file = path(sha256Hex);
        if (Files.exists(file)) {
            return;
        }
        try {
            Files.createDirectories(file.getParent());
            Path partial = Files.createTempFile(file.getParent(), sha256Hex, ".partial");
            Files.write(partial, bytes);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep media " + sha256Hex, e);
        }
    }

    private Path path(String sha256Hex) {
        return root.resolve(sha256Hex.substring(0, 2)).resolve(sha256Hex);
    }
}
