package dev.arbor.studio.files;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import jakarta.servlet.MultipartConfigElement;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.Part;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** {@code /v1/studio/files}: upload a media file, read what it is, fetch its bytes safely, delete it. */
final class FileRoutes {
    private static final String FILES = "/v1/studio/files";
    private static final String MULTIPART_CONFIG = "org.eclipse.jetty.multipartConfig";
    private static final int MAX_NAME = 255;
    private static final int IN_MEMORY_PART = 1024 * 1024;
    private static final long DRAIN_BYTES = 4L * 1024 * 1024;

    private static final Schema FILE = Schema.named(
            "File",
            Schema.resource("file")
                    .required("purpose", Schema.string())
                    .required("type", Schema.oneOf("image", "audio", "video"))
                    .required("content_type", Schema.string())
                    .required("name", Schema.nullable(Schema.string()))
                    .required("bytes", Schema.integer(0, Long.MAX_VALUE))
                    .required("sha256", Schema.string())
                    .required("created_at", Schema.timestamp())
                    .required("expires_at", Schema.nullable(Schema.timestamp()))
                    .required("available", Schema.bool()));
    private final StudioFiles files;
    private final BlobStore blobs;

    FileRoutes(StudioFiles files, BlobStore blobs) {
        this.files = requireNonNull(files, "files");
        this.blobs = requireNonNull(blobs, "blobs");
    }

    void addTo(Routes routes) {
        routes.group("studio.files")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .upload(
                        FILES,
                        "Upload an image, audio or video file (multipart field `file`, or the raw bytes)",
                        StudioFiles.MAX_BYTES + IN_MEMORY_PART,
                        this::upload)
                .created(FILE)
                .get(FILES + "/{file_id}", "What a file is", this::get)
                .ok(FILE)
                .get(FILES + "/{file_id}/content", "A file's bytes", this::content)
                .answers(200, "image/*", Schema.string())
                .answers(200, "audio/*", Schema.string())
                .answers(200, "video/*", Schema.string())
                .delete(FILES + "/{file_id}", "Delete a file (decisions that used it keep its hash)", this::delete)
                .ok(Schema.deleted("file"));
    }

    /**
     * A multipart form with the field {@code file} (and optionally {@code purpose}), or the bytes themselves with
     * their content type and a name from {@code ?name=} or {@code X-Filename}. Streamed to disk, never held whole.
     */
    private void upload(Context ctx) throws IOException {
        try {
            receive(ctx);
        } catch (ApiException e) {
            drainRequest(ctx);
            // what is left of a refused body (a damaged form, most of all) is not known: start afresh
            ctx.header("Connection", "close");
            throw e;
        }
    }

    private void receive(Context ctx) throws IOException {
        String contentType = Optional.ofNullable(ctx.header("Content-Type")).orElse("");
        if (MediaKinds.baseType(contentType).equals("multipart/form-data")) {
            uploadForm(ctx);
            return;
        }
        Optional<String> name = cleanName(
                Optional.ofNullable(ctx.queryParam("name")).or(() -> Optional.ofNullable(ctx.header("X-Filename"))));
        String purpose = purpose(Optional.ofNullable(ctx.queryParam("purpose")));
        MediaKinds.Kind kind = kind(name, Optional.of(contentType).filter(t -> !t.isBlank()));
        try (InputStream in = ctx.req().getInputStream()) {
            created(ctx, keep(in, kind, name, purpose));
        }
    }

    private void uploadForm(Context ctx) throws IOException {
        ctx.req()
                .setAttribute(
                        MULTIPART_CONFIG,
                        new MultipartConfigElement(
                                blobs.tmpDir().toString(),
                                StudioFiles.MAX_BYTES,
                                StudioFiles.MAX_BYTES + IN_MEMORY_PART,
                                IN_MEMORY_PART));
        Part part = part(ctx, "file")
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.MISSING_FIELD, "file", "Send the file in the multipart field `file`."));
        try {
            if (part.getSubmittedFileName() == null) {
                throw ApiException.of(
                        ErrorCode.MISSING_FIELD,
                        "file",
                        "The field `file` holds text, not a file; " + "send a file in it.");
            }
            Optional<Part> purposePart = part(ctx, "purpose");
            String purpose = purpose(purposePart.map(FileRoutes::text));
            Optional<String> name = cleanName(Optional.of(part.getSubmittedFileName()));
            MediaKinds.Kind kind = kind(name, Optional.ofNullable(part.getContentType()));
            try (InputStream in = part.getInputStream()) {
                created(ctx, keep(in, kind, name, purpose));
            }
        } finally {
            part.delete();
        }
    }

    private StudioFile keep(InputStream in, MediaKinds.Kind kind, Optional<String> name, String purpose)
            throws IOException {
        BlobStore.Spooled spooled = blobs.spool(in, StudioFiles.MAX_BYTES, "file");
        if (spooled.bytes() == 0) {
            blobs.discard(spooled);
            throw ApiException.of(ErrorCode.MISSING_FIELD, "file", "The file is empty.");
        }
        if (!MediaKinds.contentMatches(kind.contentType(), spooled.head(MediaKinds.HEAD_BYTES))) {
            blobs.discard(spooled);
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "file",
                    name.map(n -> "'" + n + "'").orElse("The file")
                            + " is sent as " + kind.contentType() + ", but its content is not " + kind.contentType()
                            + " (its first bytes are not that format's); send the file with its own type or extension.");
        }
        return files.store(spooled, kind, name, purpose);
    }

    private void created(Context ctx, StudioFile file) {
        Responses.created(ctx, FILES + "/" + file.id(), json(file, true, false));
    }

    /** A part of the form; a body that is not a readable form, or one too large, is the caller's error. */
    private static Optional<Part> part(Context ctx, String name) {
        try {
            return Optional.ofNullable(ctx.req().getPart(name));
        } catch (IllegalStateException | ServletException | IOException e) {
            if (isTooLarge(e)) {
                throw ApiException.of(
                        ErrorCode.PAYLOAD_TOO_LARGE,
                        "file",
                        "The file is larger than " + StudioFiles.MAX_BYTES / (1024 * 1024)
                                + " MB, the most a media file may be.");
            }
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "file",
                    "The body is not a readable multipart form; "
                            + "send multipart/form-data with the file in the field `file`, or the bytes themselves.");
        }
    }

    /**
     * Reads what is left of a refused body (up to 4 MB), so that the client finishes sending and reads the answer:
     * a connection closed on unread bytes is reset and the answer lost with it. Much more is not read.
     */
    private static void drainRequest(Context ctx) {
        try {
            InputStream in = ctx.req().getInputStream();
            long left = DRAIN_BYTES;
            for (long skipped; left > 0 && (skipped = in.skip(left)) > 0; ) {
                left -= skipped;
            }
        } catch (IOException | IllegalStateException e) {
            // the form parser has the stream, or the connection is gone; the answer goes out as it can
        }
    }

    private static boolean isTooLarge(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof IllegalStateException
                    || String.valueOf(cause.getMessage()).contains("exceeds")) {
                return true;
            }
        }
        return false;
    }

    private static String text(Part part) {
        try (InputStream in = part.getInputStream()) {
            return new String(in.readNBytes(256), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String purpose(Optional<String> sent) {
        if (sent.isPresent() && !sent.get().equals("media")) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD, "purpose", "`purpose` is media, the only purpose a file " + "has here.");
        }
        return "media";
    }

    private static MediaKinds.Kind kind(Optional<String> name, Optional<String> contentType) {
        return MediaKinds.of(name, contentType)
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.UNSUPPORTED_MEDIA_TYPE,
                        "file",
                        "A file here is an image, audio or video; "
                                + name.map(n -> "'" + n + "'").orElse("this upload") + " is "
                                + contentType.map(MediaKinds::baseType).orElse("of no stated type")
                                + ". Name it with its extension (.png, .mp3, .mp4, ...) or send its media type."));
    }

    /** The last segment of a name a browser or client sent, without control characters, at most 255 long. */
    static Optional<String> cleanName(Optional<String> sent) {
        return sent.map(name -> {
                    String base = name.substring(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
                    String clean = base.codePoints()
                            .filter(c -> !Character.isISOControl(c))
                            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                            .toString()
                            .strip();
                    return clean.length() > MAX_NAME ? clean.substring(clean.length() - MAX_NAME) : clean;
                })
                .filter(name -> !name.isEmpty() && !name.equals(".") && !name.equals(".."));
    }

    private void get(Context ctx) {
        StudioFile file = find(ctx);
        Responses.ok(ctx, json(file, files.available(file), files.inUse(file)));
    }

    /**
     * The bytes, served so that a browser cannot run them: no sniffing, a sandbox with nothing allowed, and shown
     * inline only when the type is a plain image, audio or video type.
     */
    private void content(Context ctx) throws IOException {
        StudioFile file = find(ctx);
        boolean inline = MediaKinds.inline(file.contentType());
        ctx.header("Content-Security-Policy", "sandbox; default-src 'none'");
        ctx.header("Cache-Control", "private, max-age=3600");
        ctx.header("Content-Disposition", disposition(inline ? "inline" : "attachment", file));
        InputStream in;
        try {
            in = Files.newInputStream(blobs.path(file.sha256()));
        } catch (NoSuchFileException e) {
            throw gone(file.id());
        }
        ctx.contentType(inline ? file.contentType() : "application/octet-stream");
        ctx.header("Content-Length", Long.toString(file.bytes()));
        ctx.result(in);
    }

    private void delete(Context ctx) {
        StudioFile file = find(ctx);
        files.delete(file);
        Responses.ok(ctx, Deleted.of(file.id(), "file"));
    }

    private StudioFile find(Context ctx) {
        String id = ctx.pathParam("file_id");
        return files.find(id)
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.FILE_NOT_FOUND,
                        "file_id",
                        "There is no file " + id + "; unused uploads are removed a day after they arrive."));
    }

    private static ApiException gone(String id) {
        return ApiException.of(ErrorCode.FILE_NOT_FOUND, "file_id", "The bytes of file " + id + " are gone.");
    }

    /** {@code inline; filename="x.png"; filename*=UTF-8''x.png}, the plain name limited to safe characters. */
    private static String disposition(String kind, StudioFile file) {
        if (file.name().isEmpty()) {
            return kind;
        }
        String name = file.name().get();
        String plain = name.replaceAll("[^A-Za-z0-9._ -]", "_");
        String encoded = URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
        return kind + "; filename=\"" + plain + "\"; filename*=UTF-8''" + encoded;
    }

    /** A file as the API shows it; {@code expires_at} is null while a decision or example uses it. */
    @JsonPropertyOrder({
        "id",
        "object",
        "purpose",
        "type",
        "content_type",
        "name",
        "bytes",
        "sha256",
        "created_at",
        "expires_at",
        "available"
    })
    record FileView(
            String id,
            String purpose,
            String type,
            @JsonProperty("content_type") String contentType,
            @Nullable String name,
            long bytes,
            String sha256,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("expires_at") @Nullable Long expiresAt,
            boolean available) {
        @JsonProperty("object")
        String object() {
            return "file";
        }
    }

    static FileView json(StudioFile file, boolean available, boolean inUse) {
        return new FileView(
                file.id(),
                file.purpose(),
                file.type(),
                file.contentType(),
                file.name().orElse(null),
                file.bytes(),
                "sha256:" + file.sha256(),
                file.createdAtMillis() / 1000,
                inUse ? null : file.expiresAtMillis() / 1000,
                available);
    }
}
