package dev.arbor.studio.files;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * File bytes on disk, content-addressed: {@code blobs/sha256/<2 hex>/<hex>}, written once through
 * {@code blobs/tmp} and an atomic rename, so the same picture sent a thousand times is one file and a reader never
 * sees half of one.
 */
final class BlobStore {
    /** Bytes written to a temporary file, hashed on the way, not yet under their name. */
    record Spooled(Path file, String sha256, long bytes) {
        /** The first {@code count} bytes (fewer when there are fewer). */
        byte[] head(int count) throws IOException {
            try (InputStream in = Files.newInputStream(file)) {
                return in.readNBytes(count);
            }
        }
    }

    private final Path root;
    private final Path tmp;

    BlobStore(Path dataDir) {
        Path blobs = requireNonNull(dataDir, "dataDir").resolve("blobs");
        this.root = blobs.resolve("sha256");
        this.tmp = blobs.resolve("tmp");
    }

    Path tmpDir() {
        try {
            return Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + tmp, e);
        }
    }

    /**
     * Copies a stream to a temporary file, hashing it, up to {@code maxBytes}: beyond that the copy stops, the file
     * goes and the answer is 413 {@code payload_too_large} (param {@code param}).
     */
    Spooled spool(InputStream in, long maxBytes, String param) throws IOException {
        Path file = Files.createTempFile(tmpDir(), "upload-", ".partial");
        MessageDigest digest = sha256();
        long total = 0;
        try (OutputStream out = new DigestOutputStream(Files.newOutputStream(file), digest)) {
            byte[] buffer = new byte[64 * 1024];
            for (int read; (read = in.read(buffer)) >= 0; ) {
                total += read;
                if (total > maxBytes) {
                    throw ApiException.of(
                            ErrorCode.PAYLOAD_TOO_LARGE,
                            param,
                            "The file is larger than " + maxBytes / (1024 * 1024)
                                    + " MB, the most a media file may be.");
                }
                out.write(buffer, 0, read);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        return new Spooled(file, HexFormat.of().formatHex(digest.digest()), total);
    }

    Spooled spool(byte[] bytes) {
        try {
            Path file = Files.createTempFile(tmpDir(), "inline-", ".partial");
            Files.write(file, bytes);
            return new Spooled(file, HexFormat.of().formatHex(sha256().digest(bytes)), bytes.length);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write media to " + tmp, e);
        }
    }

    /**
     * Bytes already in a file, hashed: moved next to the other temporaries (a copy only when another disk holds them),
     * to be kept as any others. Gone already (kept before), they are the blob of their hash.
     */
    Spooled adopt(Path file, String sha256, long bytes) {
        try {
            Path moved = Files.createTempFile(tmpDir(), "inline-", ".partial");
            if (!exists(sha256)) {
                Files.move(file, moved, StandardCopyOption.REPLACE_EXISTING);
            }
            return new Spooled(moved, sha256, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep media " + sha256, e);
        }
    }

    /** Puts spooled bytes under their hash, unless the same bytes are there already. */
    void keep(Spooled spooled) {
        Path file = path(spooled.sha256());
        try {
            if (Files.exists(file)) {
                Files.deleteIfExists(spooled.file());
                return;
            }
            Files.createDirectories(file.getParent());
            Files.move(spooled.file(), file, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException e) {
            discard(spooled);
        } catch (IOException e) {
            discard(spooled);
            throw new UncheckedIOException("cannot keep media " + spooled.sha256(), e);
        }
    }

    void discard(Spooled spooled) {
        try {
            Files.deleteIfExists(spooled.file());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    boolean exists(String sha256) {
        return Files.isRegularFile(path(sha256));
    }

    Path path(String sha256) {
        return root.resolve(sha256.substring(0, 2)).resolve(sha256);
    }

    void delete(String sha256) {
        try {
            Files.deleteIfExists(path(sha256));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete media " + sha256, e);
        }
    }

    /** The hashes of every blob on disk. */
    List<String> all() {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root, 2)) {
            return files.filter(Files::isRegularFile)
                    .map(p -> p.getFileName().toString())
                    .filter(name -> name.matches("[0-9a-f]{64}"))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root, e);
        }
    }

    /** Removes temporary files older than {@code cutoffMillis}: uploads a crash or a cut connection left. */
    int removeStaleTemporaries(long cutoffMillis) {
        if (!Files.isDirectory(tmp)) {
            return 0;
        }
        int removed = 0;
        try (Stream<Path> files = Files.list(tmp)) {
            for (Path file : files.toList()) {
                try {
                    if (Files.getLastModifiedTime(file).toMillis() < cutoffMillis && Files.deleteIfExists(file)) {
                        removed++;
                    }
                } catch (NoSuchFileException e) {
                    // taken by the upload that wrote it
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + tmp, e);
        }
        return removed;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
