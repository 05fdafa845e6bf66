package dev.arbor.platform.http.server;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's answer to a request it refuses before any route sees it: a request line or headers longer than the server
 * reads (414, 431) get the error envelope like every other failure, instead of Jetty's HTML page.
 */
final class BadMessageHandler extends ErrorHandler {
    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback)
            throws IOException {
        // refused before the connector's customizers ran: the header they add to every answer is added here
        response.getHeaders().put(HttpServer.NO_SNIFFING);
        if (code != 414 && code != 431) {
            super.generateResponse(request, response, code, message, cause, callback);
            return;
        }
        ApiException error = code == 414
                ? ApiException.of(
                        ErrorCode.URI_TOO_LONG,
                        "The request's URI is longer than the server reads; "
                                + "send long values in a JSON body instead of the query string.")
                : ApiException.of(
                        ErrorCode.HEADERS_TOO_LARGE, "The request's headers are larger than the " + "server reads.");
        String requestId = Ids.requestId();
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put("x-request-id", requestId);
        response.write(true, ByteBuffer.wrap(Json.write(Responses.envelope(error, requestId))), callback);
    }
}
