package dev.arbor.platform.db;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.OwnerOnly;
import dev.arbor.platform.config.StorageSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One process's claim on a data folder's SQLite database: an exclusive lock on the folder's {@code arbor.lock}, taken
 * by a server as it starts and by a restore, so that two servers never share one SQLite folder and a restore never
 * swaps the database under a server. The operating system lets go of the lock when the process ends, however it ends,
 * so a crash leaves nothing to clean up; the file itself stays and only names the last holder.
 *
 * <p>The lock is POSIX's, which a process loses when it closes any descriptor of the file, not only the one that
 * locked it: so a second claim from the same process is refused from memory, without opening the file.
 */
public final class DataFolderLock implements AutoCloseable {
    private static final String FILE = "arbor.lock";
    /** The lock files this process holds, with their holder's description. */
    private static final Map<Path, String> HELD = new ConcurrentHashMap<>();

    private final Path file;
    private final FileChannel channel;

    private DataFolderLock(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /**
     * Takes the lock of {@code dataDir} (an existing folder) for {@code purpose} ("serve", "restore"), or fails with a
     * one-line {@link ConfigException} naming the process that holds it.
     */
    public static DataFolderLock take(Path dataDir, String purpose) {
        requireNonNull(dataDir, "dataDir");
        requireNonNull(purpose, "purpose");
        Path file = dataDir.toAbsolutePath().normalize().resolve(FILE);
        String holder = "pid " + ProcessHandle.current().pid() + ", " + purpose;
        String heldHere = HELD.putIfAbsent(file, holder);
        if (heldHere != null) {
            throw inUse(dataDir, heldHere);
        }
        FileChannel channel = null;
        try {
            OwnerOnly.file(file);
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw inUse(dataDir, new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip());
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((holder + "\n").getBytes(StandardCharsets.UTF_8)));
            return new DataFolderLock(file, channel);
        } catch (IOException e) {
            release(file, channel);
            throw new UncheckedIOException("cannot lock " + file, e);
        } catch (RuntimeException e) {
            release(file, channel);
            throw e;
        }
    }

    /**
     * On SQLite, the lock of the configured data folder, taken as {@link #take} does; on PostgreSQL none, as servers
     * there may share a folder (the files' bytes and downloaded models in it).
     */
    public static Optional<DataFolderLock> forSqlite(StorageSettings config, String purpose) {
        requireNonNull(config, "config");
        return config.databaseUrl().isPresent() ? Optional.empty() : Optional.of(take(config.dataDir(), purpose));
    }

    private static ConfigException inUse(Path dataDir, String holder) {
        return new ConfigException(dataDir + " is in use by another Arbor process"
                + (holder.isEmpty() ? "" : " (" + holder + ")")
                + ": stop it first, or use another data folder");
    }

    /** Gives up a claim that failed half-way. */
    private static void release(Path file, @Nullable FileChannel channel) {
        HELD.remove(file);
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing was locked through it
        }
    }

    /** Lets go of the lock (closing the channel releases it); again is a no-op. The file stays. */
    @Override
    public synchronized void close() {
        if (!channel.isOpen()) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot release the data folder's lock", e);
        } finally {
            HELD.remove(file);
        }
    }
}
