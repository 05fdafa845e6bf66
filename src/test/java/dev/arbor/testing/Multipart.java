package dev.arbor.testing;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** A multipart/form-data body, built by hand so that tests can also send broken ones. */
public final class Multipart {
    public static final String BOUNDARY = "arbor-test-boundary-7d3f";
    public static final String CONTENT_TYPE = "multipart/form-data; boundary=" + BOUNDARY;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    public Multipart file(String field, String fileName, String contentType, byte[] bytes) {
        head("Content-Disposition: form-data; name=\"" + field + "\"; filename=\"" + fileName + "\"\r\n"
                + "Content-Type: " + contentType + "\r\n");
        body.writeBytes(bytes);
        body.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return this;
    }

    public Multipart field(String field, String value) {
        head("Content-Disposition: form-data; name=\"" + field + "\"\r\n");
        body.writeBytes(value.getBytes(StandardCharsets.UTF_8));
        body.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return this;
    }

    public byte[] bytes() {
        var all = new ByteArrayOutputStream();
        all.writeBytes(body.toByteArray());
        all.writeBytes(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return all.toByteArray();
    }

    private void head(String headers) {
        body.writeBytes(("--" + BOUNDARY + "\r\n" + headers + "\r\n").getBytes(StandardCharsets.UTF_8));
    }
}
