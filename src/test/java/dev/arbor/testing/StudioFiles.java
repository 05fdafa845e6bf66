package dev.arbor.testing;

/** What tests of the studio's file API upload. */
public final class StudioFiles {
    /** A PNG's signature and the head of its first chunk: enough for the API to take the bytes as a PNG. */
    public static final byte[] PNG = {
        (byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'
    };

    private StudioFiles() {}

    /** Uploads {@code bytes} as a browser's form does, in the field {@code file}. */
    public static HttpReply upload(TestServer http, String name, String contentType, byte[] bytes) {
        return http.sendBytes(
                "POST",
                "/v1/studio/files",
                new Multipart().file("file", name, contentType, bytes).bytes(),
                "Content-Type",
                Multipart.CONTENT_TYPE);
    }
}
