package dev.arbor.models;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * Unpacks a model's zip archive into its folder, refusing what could reach outside it or fill the disk: entries
 * whose path leaves the folder (absolute, {@code ..}), and archives that unpack to more than {@link #MAX_BYTES} or
 * more than {@link #MAX_ENTRIES} files. When every entry sits in one top-level folder, that folder is the model's.
 */
final class ModelArchive {
    static final long MAX_BYTES = 64L << 30;
    static final int MAX_ENTRIES = 10_000;

    private ModelArchive() {}

    static void unpack(Path archive, Path folder) throws IOException {
        ZipFile opened;
        try {
            opened = new ZipFile(archive.toFile());
        } catch (ZipException e) {
            throw new IOException("the download is not a zip archive (" + e.getMessage() + ")");
        }
        try (var zip = opened) {
            List<ZipEntry> entries = new ArrayList<>();
            for (Enumeration<? extends ZipEntry> all = zip.entries(); all.hasMoreElements(); ) {
                entries.add(all.nextElement());
                if (entries.size() > MAX_ENTRIES) {
                    throw new IOException("the archive holds more than " + MAX_ENTRIES + " files");
                }
            }
            String prefix = commonFolder(entries);
            long written = 0;
            for (ZipEntry entry : entries) {
                String name = entry.getName().substring(prefix.length());
                if (entry.isDirectory() || name.isEmpty()) {
                    continue;
                }
                Path target = folder.resolve(name).normalize();
                if (name.startsWith("/")
                        || name.contains("\\")
                        || !target.startsWith(folder)
                        || target.equals(folder)) {
                    throw new IOException("the archive names a file outside the model's folder: " + entry.getName());
                }
                Files.createDirectories(target.getParent());
                try (InputStream in = zip.getInputStream(entry);
                        OutputStream out = Files.newOutputStream(target)) {
                    byte[] buffer = new byte[256 * 1024];
                    for (int read; (read = in.read(buffer)) >= 0; ) {
                        written += read;
                        if (written > MAX_BYTES) {
                            throw new IOException("the archive unpacks to more than " + (MAX_BYTES >> 30) + " GB");
                        }
                        out.write(buffer, 0, read);
                    }
                }
            }
        }
    }

    /** The one top-level folder every entry is in ({@code name/}), or nothing. */
    private static String commonFolder(List<ZipEntry> entries) {
        String first = entries.isEmpty() ? "" : entries.getFirst().getName();
        int slash = first.indexOf('/');
        if (slash <= 0) {
            return "";
        }
        String prefix = first.substring(0, slash + 1);
        return entries.stream().allMatch(e -> e.getName().startsWith(prefix)) ? prefix : "";
    }
}
