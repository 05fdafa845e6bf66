package dev.arbor.studio.planning;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.InlineMedia;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.studio.definitions.Substitution;
import dev.arbor.studio.files.StudioFile;
import dev.arbor.studio.files.StudioFiles;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One media item of a decision: an uploaded file by id, or the bytes inline as a {@code data:} URL.
 *
 * @param type {@code image}, {@code audio} or {@code video}; for a file id the caller did not type, empty until
 *     the file is found
 * @param reference a {@code file_...} id or a {@code data:} URL
 * @param variable the media variable that supplied it, if a template variable did
 * @param param where it was sent, for errors
 * @param file the uploaded file a {@code file_...} reference names, once found
 */
public record MediaInput(
        String type,
        String reference,
        Optional<String> name,
        Optional<String> variable,
        String param,
        Optional<StudioFile> file) {
    static final long MAX_BYTES = 200L * 1024 * 1024;
    /**
     * The body limit of the operations that take media inline: a file of {@link #MAX_BYTES} as a base64 data URL
     * (four characters for every three bytes) and the server's usual 32 MB for everything around it.
     */
    public static final long MAX_BODY_BYTES = MAX_BYTES / 3 * 4 + 32L * 1024 * 1024;

    static final Set<String> TYPES = Set.of("image", "audio", "video");
    private static final Pattern DATA_URL =
            Pattern.compile("data:([a-z]+)/([A-Za-z0-9.+-]+)(?:;[^,;]*)*;base64,", Pattern.CASE_INSENSITIVE);

    public MediaInput {
        requireNonNull(type, "type");
        requireNonNull(reference, "reference");
        requireNonNull(name, "name");
        requireNonNull(variable, "variable");
        requireNonNull(param, "param");
        requireNonNull(file, "file");
    }

    MediaInput(String type, String reference, Optional<String> name, Optional<String> variable, String param) {
        this(type, reference, name, variable, param, Optional.empty());
    }

    /**
     * This reference with the file it names: the file's type (a different type sent with it is a problem) and its
     * name unless one was sent.
     */
    public Optional<MediaInput> withFile(StudioFile found, Problems problems) {
        if (!type.isEmpty() && !type.equals(found.type())) {
            problems.add(
                    param.startsWith("variables") ? ErrorCode.INVALID_VARIABLE : ErrorCode.INVALID_FIELD,
                    param,
                    "File " + found.id() + " is " + found.type() + ", not " + type + ".");
            return Optional.empty();
        }
        return Optional.of(
                new MediaInput(found.type(), reference, name.or(found::name), variable, param, Optional.of(found)));
    }

    public boolean inline() {
        return reference.startsWith("data:");
    }

    public static List<MediaInput> parse(JsonNode node, Problems problems) {
        if (!node.isArray()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "media",
                    "`media` must be a list of {\"file_id\"} or {\"data\"} " + "items.");
            return List.of();
        }
        var items = new ArrayList<MediaInput>();
        for (int i = 0; i < node.size(); i++) {
            String param = ParamPath.index("media", i);
            JsonNode item = node.get(i);
            if (!item.isObject()) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        param,
                        "`" + param + "` must be an object with `file_id` or " + "`data`.");
                continue;
            }
            JsonNode fileId = item.get("file_id");
            JsonNode data = item.get("data");
            boolean hasFile = fileId != null && !fileId.isNull();
            boolean hasData = data != null && !data.isNull();
            if (hasFile == hasData) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        param,
                        "`" + param + "` needs exactly one of `file_id` and " + "`data`.");
                continue;
            }
            String itemParam = param + (hasFile ? ".file_id" : ".data");
            JsonNode reference = hasFile ? fileId : data;
            if (!reference.isTextual() || (hasFile && !reference.textValue().startsWith("file_"))) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        itemParam,
                        "`" + itemParam + "` must be " + (hasFile ? "a file id (file_...)" : "a data URL") + ".");
                continue;
            }
            Optional<String> declared = Optional.empty();
            JsonNode type = item.get("type");
            if (type != null && !type.isNull()) {
                if (!type.isTextual() || !TYPES.contains(type.textValue())) {
                    problems.add(
                            ErrorCode.INVALID_FIELD,
                            param + ".type",
                            "`" + param + ".type` must be image, audio " + "or video.");
                    continue;
                }
                declared = Optional.of(type.textValue());
            }
            Optional<String> name = Optional.empty();
            JsonNode nameNode = item.get("name");
            if (nameNode != null && !nameNode.isNull()) {
                if (!nameNode.isTextual() || nameNode.textValue().length() > 255) {
                    problems.add(
                            ErrorCode.INVALID_FIELD,
                            param + ".name",
                            "`" + param + ".name` must be a string of " + "at most 255 characters.");
                    continue;
                }
                name = Optional.of(nameNode.textValue());
            }
            for (String field : iterable(item.fieldNames())) {
                if (!Set.of("type", "file_id", "data", "name").contains(field)) {
                    problems.add(
                            ErrorCode.INVALID_FIELD,
                            ParamPath.key(param, field),
                            "`"
                                    + ParamPath.key(param, field)
                                    + "` is not a field of a media item (type, file_id, data, "
                                    + "name).");
                }
            }
            checked(declared, reference.textValue(), name, Optional.empty(), itemParam, problems)
                    .ifPresent(items::add);
        }
        return List.copyOf(items);
    }

    /** The media a template's media variable supplied, checked as if sent in {@code media}, at the variable. */
    public static Optional<MediaInput> fromVariable(Substitution.Media item, Problems problems) {
        return checked(
                Optional.of(item.type()),
                item.reference(),
                Optional.empty(),
                Optional.of(item.variable()),
                ParamPath.key("variables", item.variable()),
                problems);
    }

    /** An item whose type is known or read from its data URL, or the problem with it. */
    static Optional<MediaInput> checked(
            Optional<String> declared,
            String reference,
            Optional<String> name,
            Optional<String> variable,
            String param,
            Problems problems) {
        if (!reference.startsWith("data:")) {
            return Optional.of(new MediaInput(declared.orElse(""), reference, name, variable, param));
        }
        Matcher matcher = DATA_URL.matcher(reference);
        if (!matcher.lookingAt()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` must be a base64 data URL: " + "data:<type>/<subtype>;base64,<bytes>.");
            return Optional.empty();
        }
        String family = matcher.group(1).toLowerCase(Locale.ROOT);
        if (!TYPES.contains(family)) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` holds " + family + "/" + matcher.group(2) + "; media are image, audio or video.");
            return Optional.empty();
        }
        if (declared.isPresent() && !declared.get().equals(family)) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` holds " + family + " but the item says " + declared.get() + ".");
            return Optional.empty();
        }
        Optional<InlineMedia> spooled = InlineMedia.of(reference);
        long characters = spooled.map(InlineMedia::characters).orElse((long) reference.length() - matcher.end());
        long bytes = characters * 3L / 4;
        if (bytes > MAX_BYTES) {
            problems.add(
                    ErrorCode.PAYLOAD_TOO_LARGE,
                    param,
                    "`" + param + "` holds about " + bytes / (1024 * 1024)
                            + " MB; a media file may be at most 200 MB.");
            return Optional.empty();
        }
        var item = new MediaInput(family, reference, name, variable, param);
        byte[] head = spooled.isPresent()
                ? (spooled.get().damaged() || spooled.get().bytes() == 0
                        ? new byte[0]
                        : spooled.get().head())
                : item.decode();
        if (head.length == 0) {
            problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` holds no bytes, or its base64 is damaged.");
            return Optional.empty();
        }
        if (!StudioFiles.contentMatches(item.contentType(), head)) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    param,
                    "`" + param + "` is sent as " + item.contentType()
                            + ", but its content is not " + item.contentType()
                            + " (its first bytes are not that format's); "
                            + "send the file with its own type.");
            return Optional.empty();
        }
        return Optional.of(item);
    }

    /** The content type of an inline item, such as {@code image/png}. */
    public String contentType() {
        if (file.isPresent()) {
            return file.get().contentType();
        }
        Matcher matcher = DATA_URL.matcher(reference);
        return matcher.lookingAt() ? (matcher.group(1) + "/" + matcher.group(2)).toLowerCase(Locale.ROOT) : type + "/*";
    }

    /** How many bytes an inline item holds, and their SHA-256 in hex. */
    public record InlineBytes(long size, String sha256) {}

    /** The size and hash of an inline item's bytes: worked out as the body was read, for a long data URL. */
    public InlineBytes inlineBytes() {
        Optional<InlineMedia> spooled = InlineMedia.of(reference);
        if (spooled.isPresent()) {
            return new InlineBytes(spooled.get().bytes(), spooled.get().sha256());
        }
        byte[] bytes = decode();
        return new InlineBytes(bytes.length, Digests.sha256Hex(bytes));
    }

    /**
     * Keeps an inline item's bytes as a new file: the file a long data URL was decoded to while the body was read
     * moves there, with no copy in memory.
     */
    public StudioFile keep(StudioFiles files) {
        Optional<InlineMedia> spooled = InlineMedia.of(reference);
        if (spooled.isPresent()) {
            InlineMedia media = spooled.get();
            return files.keep(media.file(), media.sha256(), media.bytes(), type, contentType(), name);
        }
        return files.keep(decode(), type, contentType(), name);
    }

    /**
     * The decoded bytes of an inline item; none when its base64 is damaged. Decoded from the URL's characters as they
     * are, into an array of the decoded size: no copy of the base64 (as large again as the bytes and a third more).
     */
    private byte[] decode() {
        Matcher matcher = DATA_URL.matcher(reference);
        if (!matcher.lookingAt()) {
            throw new IllegalStateException("not a data URL");
        }
        int start = matcher.end();
        int padding = 0;
        while (padding < 2
                && reference.length() - padding > start
                && reference.charAt(reference.length() - 1 - padding) == '=') {
            padding++;
        }
        long characters = reference.length() - start;
        long size = characters / 4 * 3 + Math.max(0, characters % 4 - 1) - padding;
        if (characters % 4 == 1 || size <= 0) {
            return new byte[0];
        }
        try (InputStream in = Base64.getDecoder().wrap(new Latin1Stream(reference, start))) {
            byte[] bytes = new byte[(int) size];
            if (in.readNBytes(bytes, 0, bytes.length) != bytes.length || in.read() >= 0) {
                return new byte[0];
            }
            return bytes;
        } catch (IOException | IllegalArgumentException e) {
            return new byte[0];
        }
    }

    /** The characters of a string from an index as bytes, one each (a character past Latin-1 is not base64 anyway). */
    private static final class Latin1Stream extends InputStream {
        private final String text;
        private int next;

        private Latin1Stream(String text, int from) {
            this.text = text;
            this.next = from;
        }

        @Override
        public int read() {
            return next < text.length() ? Math.min(text.charAt(next++), 0xff) : -1;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            if (next >= text.length()) {
                return -1;
            }
            int count = Math.min(length, text.length() - next);
            for (int i = 0; i < count; i++) {
                char c = text.charAt(next++);
                buffer[offset + i] = (byte) (c > 0xff ? '?' : c);
            }
            return count;
        }
    }

    private static Iterable<String> iterable(java.util.Iterator<String> names) {
        return () -> names;
    }
}
