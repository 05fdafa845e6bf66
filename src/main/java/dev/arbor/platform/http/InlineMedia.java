package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The payload of a long {@code data:} URL of a request body, decoded to a temporary file while the body was read
 * (see {@link InlineDataUrls}). The parsed JSON holds, in its place, the URL's header ({@code data:<type>;base64,})
 * followed by a marker that names this file until the request ends; then the file goes.
 *
 * @param file the decoded bytes, in the data folder's {@code tmp}; moved away by whoever keeps them
 * @param sha256 the bytes' SHA-256, in hex
 * @param bytes how many bytes were decoded
 * @param characters the characters of the URL after its header (its base64)
 * @param damaged whether the base64 could not be decoded whole (then the file holds what came before the damage)
 * @param head the first bytes, for telling a format by its signature
 */
public record InlineMedia(Path file, String sha256, long bytes, long characters, boolean damaged, byte[] head) {
    /** Not a base64 character: a URL that holds it cannot be a real one cut short. */
    static final String MARKER = "#arbor-inline-";

    private static final Map<String, InlineMedia> SPOOLED = new ConcurrentHashMap<>();

    public InlineMedia {
        requireNonNull(file, "file");
        requireNonNull(sha256, "sha256");
        requireNonNull(head, "head");
    }

    /** The file a reference in a parsed body stands for, while its request lasts. */
    public static Optional<InlineMedia> of(String reference) {
        int marker = reference.indexOf(MARKER);
        return marker < 0
                ? Optional.empty()
                : Optional.ofNullable(SPOOLED.get(reference.substring(marker + MARKER.length())));
    }

    /** Whether a value of the parsed body holds, at any depth, a data: URL that went to a file. */
    public static boolean within(JsonNode node) {
        if (node.isTextual()) {
            return of(node.textValue()).isPresent();
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            if (of(entries.next().getKey()).isPresent()) {
                return true;
            }
        }
        for (JsonNode child : node) {
            if (within(child)) {
                return true;
            }
        }
        return false;
    }

    /** How many characters a string of the parsed body had as it was sent: a spooled URL's whole length. */
    public static long sentLength(String text) {
        return of(text).map(media -> header(text).length() + media.characters()).orElse((long) text.length());
    }

    /** The header of a reference (what precedes the marker), as the URL began. */
    public static String header(String reference) {
        int marker = reference.indexOf(MARKER);
        return marker < 0 ? reference : reference.substring(0, marker);
    }

    /**
     * Deletes the files a server that stopped mid-request left in {@code folder}: those older than {@code age} (a
     * server sharing the folder may be reading a body into a newer one).
     */
    public static void removeLeftovers(Path folder, Duration age) {
        if (!Files.isDirectory(folder)) {
            return;
        }
        long cutoff = System.currentTimeMillis() - age.toMillis();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith("inline-"))
                    .toList()) {
                try {
                    if (Files.getLastModifiedTime(file).toMillis() < cutoff) {
                        Files.deleteIfExists(file);
                    }
                } catch (NoSuchFileException e) {
                    // its request ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + folder, e);
        }
    }

    static void register(String key, InlineMedia media) {
        SPOOLED.put(key, media);
    }

    /** Forgets the file and deletes it unless it was moved away. */
    static void release(String key) {
        InlineMedia media = SPOOLED.remove(key);
        if (media != null) {
            media.delete();
        }
    }

    void delete() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + file, e);
        }
    }
}
