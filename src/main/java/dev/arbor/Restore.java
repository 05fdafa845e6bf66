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
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * {@code arbor restore SRC}: puts a folder {@code arbor backup} wrote in place as the data folder's database and key.
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
    /** The database's files SQLite keeps beside it: moved with it, or the old log would be replayed into the new one. */
    private static final List<String> LIVE = List.of(DATABASE, DATABASE + "-wal", DATABASE + "-shm", KEY);

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
        try (var _ = DataFolderLock.take(data, "restore")) {
            Path newDatabase = data.resolve(DATABASE + ".restoring");
            Path newKey = data.resolve(KEY + ".restoring");
            try {
                // left by a restore that was stopped half-way: ours to replace, as we hold the lock
                Files.deleteIfExists(newDatabase);
                Files.deleteIfExists(newKey);
                OwnerOnly.file(newDatabase);
                Database.copyCheckedSqlite(source.resolve(DATABASE), newDatabase);
                if (key.isPresent()) {
                    OwnerOnly.file(newKey);
                    Files.writeString(newKey, key.get() + "\n", StandardCharsets.UTF_8);
                }
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(newDatabase);
                Files.deleteIfExists(newKey);
                throw e;
            }
            Optional<Path> aside = moveAside(data);
            Files.move(newDatabase, data.resolve(DATABASE), StandardCopyOption.ATOMIC_MOVE);
            if (key.isPresent()) {
                Files.move(newKey, data.resolve(KEY), StandardCopyOption.ATOMIC_MOVE);
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

    /** Moves the live database files and key into a new owner-only folder; none when there were none. */
    private Optional<Path> moveAside(Path data) throws IOException {
        var present = new ArrayList<String>();
        for (String name : LIVE) {
            if (Files.exists(data.resolve(name))) {
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
}
