package dev.arbor.studio.files;

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
    private static final Set<String> INLINE = Set.of("image/png", "image/jpeg", "image/webp", "image/gif",
            "image/bmp", "audio/wav", "audio/x-wav", "audio/wave", "audio/mpeg", "audio/mp4", "audio/ogg",
            "audio/flac", "audio/webm", "video/mp4", "video/ogg", "video/webm", "video/quicktime",
            "video/x-matroska", "video/x-msvideo");

    private MediaKinds() {}

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
            return Optional.of(family.equals("video") && kind.contentType().equals("audio/webm")
                    ? new Kind("video", "video/webm") : kind);
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
