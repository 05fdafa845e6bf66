import io.javalin.Javalin;

/**
 * The framework floor: Javalin 7 on virtual threads, as Arbor configures it, with one route answering the JSON that
 * Arbor's /health answers and nothing else. Run with the Arbor jar on the class path:
 * java -cp target/arbor.jar BareJavalin.java PORT
 */
public class BareJavalin {
    public static void main(String[] args) {
        long started = System.currentTimeMillis();
        Javalin.create(config -> {
                    config.startup.showJavalinBanner = false;
                    config.concurrency.useVirtualThreads = true;
                    config.routes.get("/health", ctx -> {
                        ctx.contentType("application/json");
                        ctx.result("{\"status\":\"ok\",\"version\":\"bare\",\"uptime_seconds\":"
                                + (System.currentTimeMillis() - started) / 1000 + "}");
                    });
                })
                .start("127.0.0.1", Integer.parseInt(args[0]));
    }
}
