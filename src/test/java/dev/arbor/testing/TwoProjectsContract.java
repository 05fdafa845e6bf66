package dev.arbor.testing;

import dev.arbor.ArborServer;
import dev.arbor.platform.db.Database;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * One server for a whole contract class, on the database its subclass names, with the {@link TwoProjects} that show a
 * member staying in its own project. A subclass's own {@code @BeforeAll} runs after the server is up, its
 * {@code @AfterAll} before the server stops.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class TwoProjectsContract {
    private final String adminSecret;
    private final Map<String, String> settings;
    protected ArborServer server;
    protected TestServer http;
    protected String mine;
    protected String theirs;
    protected String memberSecret;
    private Map<String, String> env = Map.of();

    /** A contract whose server has {@code adminSecret} as its admin token, and {@code settings} beside its database. */
    protected TwoProjectsContract(String adminSecret, Map<String, String> settings) {
        this.adminSecret = adminSecret;
        this.settings = Map.copyOf(settings);
    }

    /** The server's database: what each subclass runs the contract on. */
    protected abstract Map<String, String> database();

    /** The server's idea of the time: the system's unless the contract moves it. */
    protected Clock clock() {
        return Clock.systemUTC();
    }

    @BeforeAll
    protected void startServer() {
        var env = new HashMap<>(database());
        env.putAll(settings);
        env.put("ARBOR_ADMIN_TOKEN", adminSecret);
        this.env = Map.copyOf(env);
        server = ArborServer.start(env, clock());
        http = server.http();
        var projects = TwoProjects.create(http, adminSecret);
        mine = projects.mine();
        theirs = projects.theirs();
        memberSecret = projects.memberSecret();
    }

    /**
     * A second handle on the running server's database, for a state no route can leave in it at a chosen moment (a
     * round a replay left waiting before the server's dispatcher took it); the caller closes it.
     */
    protected Database openDatabase() {
        String url = env.get("ARBOR_DATABASE_URL");
        return url != null
                ? Database.openPostgres(url)
                : Database.openSqlite(server.dataDir().resolve("arbor.db"));
    }

    @AfterAll
    protected void stopServer() {
        server.close();
    }
}
