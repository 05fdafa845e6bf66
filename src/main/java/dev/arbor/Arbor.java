package dev.arbor;

import dev.arbor.access.Access;
import dev.arbor.platform.config.Config;
import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.OwnerOnly;
import dev.arbor.platform.db.Database;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The command line: {@code serve} runs the server; {@code version} prints the version. */
public final class Arbor {
    private static final Logger LOG = LoggerFactory.getLogger(Arbor.class);
    private static final String USAGE = """
            usage: arbor <command> [options]

            commands:
              serve [--host H] [--port P] [--data DIR] [--database-url URL]
                        start the server (defaults: 127.0.0.1, 8420, ./data, SQLite in the data folder);
                        each flag mirrors ARBOR_HOST, ARBOR_PORT, ARBOR_DATA, ARBOR_DATABASE_URL
              token create [--name N] [--data DIR] [--database-url URL]
                        make an admin token on this machine and print its secret: for an operator with no token
                        left (revoked or expired), with or without the server running
              worker    (started by the server) run one model in its own process
              version   print the version
              help      print this
            """;
    private static final String SERVE_USAGE = """
            usage: arbor serve [--host H] [--port P] [--data DIR] [--database-url URL]

            Starts the server. Each flag mirrors an environment variable; a flag wins over the variable.
              --host H              ARBOR_HOST          address to listen on (default 127.0.0.1)
              --port P              ARBOR_PORT          port to listen on (default 8420; 0 picks a free one)
              --data DIR            ARBOR_DATA          data folder: SQLite database, secret key, logs (default ./data)
              --database-url URL    ARBOR_DATABASE_URL  PostgreSQL instead of SQLite (postgresql://user:pw@host/db)
            Every other setting is an environment variable; the README's Configuration table lists them all.
            """;

    private Arbor() {}

    public static void main(String[] args) {
        String command = args.length == 0 ? "help" : args[0];
        List<String> rest = Arrays.asList(args).subList(Math.min(1, args.length), args.length);
        switch (command) {
            case "serve" -> serve(rest);
            case "worker" -> dev.arbor.models.Worker.main(rest);
            case "token" -> token(rest);
            case "version", "--version" -> System.out.println("arbor " + version());
            case "help", "--help", "-h" -> System.out.print(USAGE);
            default -> {
                System.err.println("arbor: unknown command '" + command + "'\n");
                System.err.print(USAGE);
                System.exit(2);
            }
        }
    }

    private static void token(List<String> arguments) {
        if (arguments.isEmpty() || !arguments.getFirst().equals("create")) {
            System.err.println("arbor: usage: arbor token create [--name N] [--data DIR] [--database-url URL]");
            System.exit(2);
            return;
        }
        var flags = new ArrayList<>(arguments.subList(1, arguments.size()));
        String name = "restored admin";
        int at = flags.indexOf("--name");
        if (at >= 0) {
            if (at + 1 >= flags.size() || flags.get(at + 1).isBlank()) {
                System.err.println("arbor: --name needs a value");
                System.exit(2);
                return;
            }
            name = flags.remove(at + 1);
            flags.remove(at);
        }
        try {
            Config config = Config.load(System.getenv(), flags);
            OwnerOnly.folder(config.dataDir());
            try (Database database = Database.open(config)) {
                String secret = Access.createAdminToken(database, Clock.systemUTC(), name);
                System.err.println("arbor: made the admin token '" + name + "'; its secret is shown once:");
                System.out.println(secret);
            }
        } catch (ConfigException e) {
            System.err.println("arbor: " + e.getMessage());
            System.exit(2);
        }
    }

    static String version() {
        String version = Arbor.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }

    private static void serve(List<String> flags) {
        if (flags.contains("--help") || flags.contains("-h")) {
            System.out.print(SERVE_USAGE);
            return;
        }
        Config config;
        try {
            config = Config.load(System.getenv(), flags);
        } catch (ConfigException e) {
            System.err.println("arbor: " + e.getMessage());
            System.exit(2);
            return;
        }
        Application application;
        try {
            application = Application.start(config);
        } catch (ConfigException e) {
            System.err.println("arbor: " + e.getMessage());
            System.exit(2);
            return;
        }
        var stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("stopping: letting requests in flight finish");
            application.close();
            LOG.info("stopped");
            stopped.countDown();
        }, "arbor-shutdown"));
        LOG.info("Arbor {} serving on http://{}:{} (data: {}, database: {})", version(), config.host(),
                application.port(), config.dataDir(),
                config.databaseUrl().isPresent() ? "postgresql" : "sqlite");
    }
}
