package dev.arbor.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removal of the folders tests make in the temporary directory. */
public final class TempFolders {
    private TempFolders() {}

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
