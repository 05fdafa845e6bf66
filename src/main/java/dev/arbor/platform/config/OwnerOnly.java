package dev.arbor.platform.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folders and files only the server's own user may read: the data folder (the database, the secret key, kept
 * files, workers' logs) and the database file, whose write-ahead log and shared-memory files SQLite creates with the
 * database's own permissions. On a file system without POSIX permissions nothing is changed.
 */
public final class OwnerOnly {
    private static final Logger LOG = LoggerFactory.getLogger(OwnerOnly.class);
    private static final Set<PosixFilePermission> FOLDER = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private OwnerOnly() {}

    /** Makes {@code folder} (and any missing parent) if it is missing, and closes it to other users. */
    public static void folder(Path folder) {
        try {
            if (!Files.isDirectory(folder)) {
                Files.createDirectories(folder.toAbsolutePath().getParent());
                try {
                    Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(FOLDER));
                } catch (FileAlreadyExistsException raced) {
                    // made by another process meanwhile: tightened below
                } catch (UnsupportedOperationException noPosix) {
                    Files.createDirectories(folder);
                }
            }
            tighten(folder, FOLDER);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the folder " + folder, e);
        }
    }

    /** Makes the empty file {@code file} if it is missing, and closes it to other users. */
    public static void file(Path file) {
        try {
            if (!Files.exists(file)) {
                try {
                    Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE));
                } catch (FileAlreadyExistsException raced) {
                    // made by another process meanwhile: tightened below
                } catch (UnsupportedOperationException noPosix) {
                    return;
                }
            }
            tighten(file, FILE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the file " + file, e);
        }
    }

    private static void tighten(Path path, Set<PosixFilePermission> allowed) throws IOException {
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(path);
        } catch (UnsupportedOperationException noPosix) {
            return;
        }
        if (!allowed.containsAll(permissions)) {
            Files.setPosixFilePermissions(path, allowed);
            LOG.warn("{} was open to other users of this machine; it is now its owner's only", path.getFileName());
        }
    }
}
