package dev.arbor.studio.files;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.ids.Ids;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The studio's media files: uploads under {@code /v1/studio/files}, and media that decisions and examples sent
 * inline and history keeps. Bytes are content-addressed on disk; a file nothing uses goes a day after its upload.
 */
public final class StudioFiles {
    public static final long MAX_BYTES = 200L * 1024 * 1024;
    static final Duration UNUSED_KEPT = Duration.ofDays(1);
    private static final int SWEEP_BATCH = 500;

    /** What one sweep removed. */
    public record Sweep(int files, int blobs) {}

    private final FileStore store;
    private final BlobStore blobs;
    private final Clock clock;
    private final FileUsers users;
    /** Held while a blob gains or may lose its last file row, so a new upload never lands on a blob being deleted. */
    private final ReentrantLock blobLock = new ReentrantLock();

    private final AtomicLong blobsScannedAt = new AtomicLong();

    public StudioFiles(Database database, Clock clock, Path dataDir, FileUsers users) {
        this.store = new FileStore(database);
        this.blobs = new BlobStore(dataDir);
        this.clock = requireNonNull(clock, "clock");
        this.users = requireNonNull(users, "users");
    }

    public void addRoutes(Routes routes) {
        new FileRoutes(this, blobs).addTo(routes);
    }

    public Optional<StudioFile> find(String id) {
        return store.find(id);
    }

    /** Whether the file's bytes are still on disk. */
    public boolean available(StudioFile file) {
        return blobs.exists(file.sha256());
    }

    /** Whether a file of this id exists with its bytes. */
    public boolean available(String id) {
        return find(id).map(this::available).orElse(false);
    }

    /**
     * Whether bytes begin as their content type's format does: the check an upload gets, for media sent another way
     * (inline as data URLs). A type whose signature is not known here matches anything.
     */
    public static boolean contentMatches(String contentType, byte[] bytes) {
        return MediaKinds.contentMatches(MediaKinds.baseType(contentType), bytes);
    }

    /** Keeps bytes a decision or an example sent inline, as a new file. */
    public StudioFile keep(byte[] bytes, String type, String contentType, Optional<String> name) {
        return store(blobs.spool(bytes), new MediaKinds.Kind(type, contentType), name, "media");
    }

    /**
     * Keeps bytes a decision or an example sent inline, decoded to {@code file} as its body was read, as a new file:
     * the file is moved, not copied.
     */
    public StudioFile keep(
            Path file, String sha256, long bytes, String type, String contentType, Optional<String> name) {
        return store(blobs.adopt(file, sha256, bytes), new MediaKinds.Kind(type, contentType), name, "media");
    }

    /** Keeps these files at least another day: a decision or example is about to use them. */
    public void hold(Collection<String> ids) {
        store.extend(ids, clock.millis() + UNUSED_KEPT.toMillis());
    }

    /** Whether something uses the file (then it has no expiry). */
    boolean inUse(StudioFile file) {
        return users.inUse(List.of(file.id())).contains(file.id());
    }

    StudioFile store(BlobStore.Spooled spooled, MediaKinds.Kind kind, Optional<String> name, String purpose) {
        long now = clock.millis();
        var file = new StudioFile(
                Ids.next("file"),
                purpose,
                kind.type(),
                kind.contentType(),
                name,
                spooled.bytes(),
                spooled.sha256(),
                now,
                now + UNUSED_KEPT.toMillis());
        blobLock.lock();
        try {
            blobs.keep(spooled);
            store.insert(file);
        } finally {
            blobLock.unlock();
        }
        return file;
    }

    /** Deletes the file, and its bytes unless another file shares them. */
    void delete(StudioFile file) {
        blobLock.lock();
        try {
            if (!store.delete(file)) {
                blobs.delete(file.sha256());
            }
        } finally {
            blobLock.unlock();
        }
    }

    /**
     * Removes files past their expiry that nothing uses (one found in use is looked at again a day later), uploads
     * a crash left half-written, and, once a day, blobs no file names.
     */
    public Sweep sweep() {
        long now = clock.millis();
        int files = 0;
        List<StudioFile> batch;
        do {
            batch = store.expired(now, SWEEP_BATCH);
            Set<String> used = users.inUse(batch.stream().map(StudioFile::id).toList());
            var stillUsed = new ArrayList<String>();
            for (StudioFile file : batch) {
                if (used.contains(file.id())) {
                    stillUsed.add(file.id());
                } else {
                    delete(file);
                    files++;
                }
            }
            store.extend(stillUsed, now + UNUSED_KEPT.toMillis());
        } while (batch.size() == SWEEP_BATCH);
        blobs.removeStaleTemporaries(System.currentTimeMillis() - UNUSED_KEPT.toMillis());
        int orphans = 0;
        long scanned = blobsScannedAt.get();
        if (now - scanned >= UNUSED_KEPT.toMillis() && blobsScannedAt.compareAndSet(scanned, now)) {
            orphans = removeOrphanBlobs();
        }
        return new Sweep(files, orphans);
    }

    private int removeOrphanBlobs() {
        int removed = 0;
        List<String> all = blobs.all();
        for (int from = 0; from < all.size(); from += SWEEP_BATCH) {
            List<String> hashes = all.subList(from, Math.min(all.size(), from + SWEEP_BATCH));
            blobLock.lock();
            try {
                Set<String> known = store.knownHashes(hashes);
                for (String hash : hashes) {
                    if (!known.contains(hash)) {
                        blobs.delete(hash);
                        removed++;
                    }
                }
            } finally {
                blobLock.unlock();
            }
        }
        return removed;
    }

    /** What the files' bytes take on disk. */
    public long storedBytes() {
        return store.storedBytes();
    }
}
