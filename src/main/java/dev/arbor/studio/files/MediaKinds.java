package dev.arbor.studio.files;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What kind of media a file is, from its name or its content type, and which types are safe to show inline. */
final class MediaKinds {
    /** The kind and the content type a file is kept with. */
    record Kind(String type, String contentType) {}

    private static final Map<String, Kind> BY_EXTENSION = Map.ofEntries(
            Map.entry("png", new Kind("image", "image/png")),
            Map.entry("jpg", new Kind("image", "image/jpeg")),
            Map.entry("jpeg", new Kind("image", "image/jpeg")),
            Map.entry("webp", new Kind("image", "image/webp")),
            Map.entry("gif", new Kind("image", "image/gif")),
            Map.entry("bmp", new Kind("image", "image/bmp")),
            Map.entry("wav", new Kind("audio", "audio/wav")),
            Map.entry("mp3", new Kind("audio", "audio/mpeg")),
            Map.entry("m4a", new Kind("audio", "audio/mp4")),
            Map.entry("ogg", new Kind("audio", "audio/ogg")),
            Map.entry("flac", new Kind("audio", "audio/flac")),
            Map.entry("webm", new Kind("audio", "audio/webm")),
            Map.entry("mp4", new Kind("video", "video/mp4")),
            Map.entry("mov", new Kind("video", "video/quicktime")),
            Map.entry("mkv", new Kind("video", "video/x-matroska")),
            Map.entry("avi", new Kind("video", "video/x-msvideo")));

    /** Types a browser may render from this server: no scripts (so no SVG), no HTML. */
    private static final Set<String> INLINE = Set.of(
            "image/png",
            "image/jpeg",
            "image/webp",
            "image/gif",
            "image/bmp",
            "audio/wav",
            "audio/x-wav",
            "audio/wave",
            "audio/mpeg",
            "audio/mp4",
            "audio/ogg",
            "audio/flac",
            "audio/webm",
            "video/mp4",
            "video/ogg",
            "video/webm",
            "video/quicktime",
            "video/x-matroska",
            "video/x-msvideo");

    /** How many first bytes {@link #contentMatches} looks at. */
    static final int HEAD_BYTES = 12;

    private MediaKinds() {}

    /**
     * Whether a file's first bytes are those of its content type's format; a type whose signature is not known here
     * matches anything.
     */
    static boolean contentMatches(String contentType, byte[] head) {
        return switch (contentType) {
            case "image/png" -> startsWith(head, 0, 0x89, 'P', 'N', 'G');
            case "image/jpeg" -> startsWith(head, 0, 0xFF, 0xD8, 0xFF);
            case "image/gif" -> startsWith(head, 0, 'G', 'I', 'F', '8');
            case "image/bmp" -> startsWith(head, 0, 'B', 'M');
            case "image/webp" -> riff(head, "WEBP");
            case "audio/wav", "audio/x-wav", "audio/wave" -> riff(head, "WAVE");
            case "video/x-msvideo" -> riff(head, "AVI ");
            case "audio/mpeg" ->
                startsWith(head, 0, 'I', 'D', '3')
                        || head.length > 1 && (head[0] & 0xFF) == 0xFF && (head[1] & 0xE0) == 0xE0;
            case "audio/ogg", "video/ogg" -> startsWith(head, 0, 'O', 'g', 'g', 'S');
            case "audio/flac" -> startsWith(head, 0, 'f', 'L', 'a', 'C');
            case "audio/webm", "video/webm", "video/x-matroska" -> startsWith(head, 0, 0x1A, 0x45, 0xDF, 0xA3);
            case "audio/mp4", "video/mp4" -> startsWith(head, 4, 'f', 't', 'y', 'p');
            // QuickTime files may open with any of their atoms
            case "video/quicktime" ->
                List.of("ftyp", "moov", "mdat", "wide", "free", "skip", "pnot").stream()
                        .anyMatch(atom -> startsWith(head, 4, atom.chars().toArray()));
            default -> true;
        };
    }

    private static boolean riff(byte[] head, String format) {
        return startsWith(head, 0, 'R', 'I', 'F', 'F')
                && startsWith(head, 8, format.chars().toArray());
    }

    private static boolean startsWith(byte[] head, int offset, int... expected) {
        if (head.length < offset + expected.length) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if ((head[offset + i] & 0xFF) != expected[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The kind by the name's extension ({@code .webm} is video when the content type says so), else by the content
     * type's major type; empty when it is neither image, audio nor video.
     */
    static Optional<Kind> of(Optional<String> name, Optional<String> contentType) {
        String type = contentType.map(MediaKinds::baseType).orElse("");
        String family = type.contains("/") ? type.substring(0, type.indexOf('/')) : "";
        Optional<Kind> byName = name.flatMap(MediaKinds::extension).map(BY_EXTENSION::get);
        if (byName.isPresent()) {
            Kind kind = byName.get();
            if (family.equals(kind.type())) {
                return Optional.of(new Kind(kind.type(), type));
            }
            return Optional.of(
                    family.equals("video") && kind.contentType().equals("audio/webm")
                            ? new Kind("video", "video/webm")
                            : kind);
        }
        if (Set.of("image", "audio", "video").contains(family) && type.length() > family.length() + 1) {
            return Optional.of(new Kind(family, type));
        }
        return Optional.empty();
    }

    static boolean inline(String contentType) {
        return INLINE.contains(contentType);
    }

    /** {@code image/png; charset=x} as {@code image/png}, lower case. */
    static String baseType(String contentType) {
        return contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    }

    private static Optional<String> extension(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? Optional.empty() : Optional.of(name.substring(dot + 1).toLowerCase(Locale.ROOT));
    }
}
