import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * The baseline: the same Jetty that Arbor runs on, with one handler answering the JSON that Arbor's /health
 * answers, and nothing else. Run with the Arbor jar on the class path: java -cp target/arbor.jar BareJetty.java PORT
 */
public class BareJetty {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        long started = System.currentTimeMillis();
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                String body = "{\"status\":\"ok\",\"version\":\"bare\",\"uptime_seconds\":"
                        + (System.currentTimeMillis() - started) / 1000 + "}";
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        });
        server.start();
        server.join();
    }
}
