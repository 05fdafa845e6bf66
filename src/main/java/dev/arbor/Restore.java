package dev.arbor;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.OwnerOnly;
import dev.arbor.platform.config.StorageSettings;
import dev.arbor.platform.db.DataFolderLock;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.secrets.SecretBox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * {@code arbor restore SRC}: puts a folder {@code arbor backup} wrote in place as the data folder's database, key and
 * uploaded files ({@code blobs/}).
 *
 * <p>Nothing is destroyed: the database (with its write-ahead log) and key it replaces move, as they are, into a new
 * folder {@code before-restore-<time>} in the data folder, itself a folder a restore takes, so a restore can be undone
 * with another. Moving aside rather than refusing without a flag means the common case needs no flag and no case loses
 * data, and renaming within the folder works even when the current database is too damaged to copy. The source is
 * checked and copied beside the live files first; only then are the live files moved, so a bad source leaves the data
 * folder as it was. The folder's lock keeps a server from starting meanwhile, and refuses a restore under a server.
 */
final class Restore {
    private static final String DATABASE = "arbor.db";
    private static final String KEY = "secret.key";
    /** Uploaded files by content hash; {@code blobs/tmp} holds uploads in progress, which a backup leaves out. */
    private static final String BLOBS = "blobs";

    private static final String CONTENT = "sha256";
    /** The database's files SQLite keeps beside it: moved with it, or the old log would be replayed into the new one. */
    private static final List<String> LIVE = List.of(DATABASE, DATABASE + "-wal", DATABASE + "-shm", KEY, BLOBS);

    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private final StorageSettings config;
    private final Clock clock;

    Restore(StorageSettings config, Clock clock) {
        this.config = requireNonNull(config, "config");
        this.clock = requireNonNull(clock, "clock");
    }

    /** Restores {@code source} and says what it did, in one line; a refusal is a {@link ConfigException}. */
    String from(Path source) throws IOException {
        requireNonNull(source, "source");
        if (config.databaseUrl().isPresent()) {
            throw new ConfigException("the database is PostgreSQL: restore it with pg_restore (or psql) from your"
                    + " pg_dump, and set ARBOR_SECRET_KEY to the key kept with it");
        }
        if (!Files.isRegularFile(source.resolve(DATABASE))) {
            throw new ConfigException(source + " is not a backup made by 'arbor backup': it holds no " + DATABASE);
        }
        Optional<String> key = key(source);
        Path data = config.dataDir();
        OwnerOnly.folder(data);
        // a backup made before backups held files has none: the files in the data folder then stay where they are
        boolean withFiles = Files.isDirectory(source.resolve(BLOBS));
        try (var _ = DataFolderLock.take(data, "restore")) {
            Path newDatabase = data.resolve(DATABASE + ".restoring");
            Path newKey = data.resolve(KEY + ".restoring");
            Path newBlobs = data.resolve(BLOBS + ".restoring");
            try {
                // left by a restore that was stopped half-way: ours to replace, as we hold the lock
                Files.deleteIfExists(newDatabase);
                Files.deleteIfExists(newKey);
                deleteTree(newBlobs);
                OwnerOnly.file(newDatabase);
                Database.copyCheckedSqlite(source.resolve(DATABASE), newDatabase);
                if (key.isPresent()) {
                    OwnerOnly.file(newKey);
                    Files.writeString(newKey, key.get() + "\n", StandardCharsets.UTF_8);
                }
                if (withFiles) {
                    OwnerOnly.folder(newBlobs);
                    copyTree(source.resolve(BLOBS).resolve(CONTENT), newBlobs.resolve(CONTENT));
                }
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(newDatabase);
                Files.deleteIfExists(newKey);
                deleteTree(newBlobs);
                throw e;
            }
            Optional<Path> aside = moveAside(data, withFiles);
            Files.move(newDatabase, data.resolve(DATABASE), StandardCopyOption.ATOMIC_MOVE);
            if (key.isPresent()) {
                Files.move(newKey, data.resolve(KEY), StandardCopyOption.ATOMIC_MOVE);
            }
            if (withFiles) {
                Files.move(newBlobs, data.resolve(BLOBS), StandardCopyOption.ATOMIC_MOVE);
            }
            return "restored " + source + " into " + data
                    + aside.map(folder -> "; the data it replaced is in " + folder)
                            .orElse("")
                    + (key.isEmpty() ? " (the key is ARBOR_SECRET_KEY)" : "");
        }
    }

    /**
     * The source's key file, checked; none when the backup was made with {@code ARBOR_SECRET_KEY}, which must then be
     * set now too, or the server would make a new key that opens none of the restored secrets.
     */
    private Optional<String> key(Path source) throws IOException {
        Path file = source.resolve(KEY);
        if (!Files.isRegularFile(file)) {
            if (config.secretKey().isEmpty()) {
                throw new ConfigException(source + " holds no " + KEY + " (a backup made with ARBOR_SECRET_KEY):"
                        + " set ARBOR_SECRET_KEY to the key kept with it");
            }
            return Optional.empty();
        }
        String text = Files.readString(file, StandardCharsets.UTF_8).strip();
        try {
            new SecretBox(Base64.getDecoder().decode(text));
        } catch (IllegalArgumentException | ConfigException e) {
            throw new ConfigException(file + " does not hold a secret key (base64 of 32 bytes)");
        }
        return Optional.of(text);
    }

    /**
     * Moves the live database files, key and (when the backup brings its own) uploaded files into a new owner-only
     * folder; none when there were none.
     */
    private Optional<Path> moveAside(Path data, boolean withFiles) throws IOException {
        var present = new ArrayList<String>();
        for (String name : LIVE) {
            if (Files.exists(data.resolve(name)) && (withFiles || !name.equals(BLOBS))) {
                present.add(name);
            }
        }
        if (present.isEmpty()) {
            return Optional.empty();
        }
        String name = "before-restore-" + STAMP.format(clock.instant());
        Path aside = data.resolve(name);
        for (int again = 2; Files.exists(aside); again++) {
            aside = data.resolve(name + "-" + again);
        }
        OwnerOnly.folder(aside);
        for (String file : present) {
            Files.move(data.resolve(file), aside.resolve(file), StandardCopyOption.ATOMIC_MOVE);
        }
        return Optional.of(aside);
    }

    /**
     * Copies the uploaded files of a data folder into a backup folder; answers how many. Files are named by their
     * content and never change, so a copy taken while the server runs is whole; one deleted meanwhile is left out.
     */
    static long copyBlobs(Path data, Path backup) throws IOException {
        Path files = data.resolve(BLOBS).resolve(CONTENT);
        if (!Files.isDirectory(files)) {
            return 0;
        }
        OwnerOnly.folder(backup.resolve(BLOBS));
        return copyTree(files, backup.resolve(BLOBS).resolve(CONTENT));
    }

    private static long copyTree(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            return 0;
        }
        long copied = 0;
        List<Path> entries;
        try (var listing = Files.list(from)) {
            entries = listing.toList();
        }
        OwnerOnly.folder(to);
        for (Path entry : entries) {
            Path target = to.resolve(entry.getFileName().toString());
            if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                copied += copyTree(entry, target);
            } else if (Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Files.copy(entry, target, StandardCopyOption.COPY_ATTRIBUTES);
                    copied++;
                } catch (NoSuchFileException e) {
                    // deleted since it was listed (retention): its row is gone too, or goes soon
                }
            }
        }
        return copied;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
