package dev.arbor.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The folders tests make in the temporary directory, and their removal: those made with {@link #newFolder} go when
 * the test class that made them ends ({@link TempFolderCleanup}), so that a run leaves nothing behind.
 */
public final class TempFolders {
    private static final Set<Path> MADE = ConcurrentHashMap.newKeySet();

    private TempFolders() {}

    /**
     * A new folder in the temporary directory, removed when the current test class ends (not before: a test may
     * start a second server on a first one's folder to see what survives a restart).
     */
    public static Path newFolder(String prefix) {
        try {
            Path folder = Files.createTempDirectory(prefix);
            MADE.add(folder);
            return folder;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes every folder {@link #newFolder} made so far. */
    static void deleteMade() {
        for (Path folder : Set.copyOf(MADE)) {
            deleteQuietly(folder);
            MADE.remove(folder);
        }
    }

    /** Removes {@code folder} and everything in it, as far as it can: what is left stays in the temporary directory. */
    public static void deleteQuietly(Path folder) {
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort, as the comment above says
        }
    }
}
