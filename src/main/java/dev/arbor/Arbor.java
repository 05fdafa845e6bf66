package dev.arbor;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.OwnerOnly;
import dev.arbor.platform.config.StorageSettings;
import dev.arbor.platform.config.Version;
import dev.arbor.platform.db.DataFolderLock;
import dev.arbor.platform.db.Database;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The command line: {@code serve} runs the server; the others keep it (backup, restore, migrate, token). */
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
              backup DEST [--data DIR]
                        copy the SQLite database and the secret key file into the new folder DEST, consistently,
                        while the server serves; start a server with --data DEST to use the copy
              restore SRC [--data DIR]
                        put the backup folder SRC in place as the data folder's database and key, with the server
                        stopped; what it replaces moves into DIR/before-restore-<time>
              migrate [--data DIR] [--database-url URL]
                        bring the database's schema up to this release and print its version (on SQLite, with
                        the server stopped)
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
            Every other setting is an environment variable: docs/operations/configuration.md lists them all.
            """;

    private Arbor() {}

    public static void main(String[] args) {
        String command = args.length == 0 ? "help" : args[0];
        List<String> rest = Arrays.asList(args).subList(Math.min(1, args.length), args.length);
        switch (command) {
            case "serve" -> serve(rest);
            case "worker" -> dev.arbor.models.workers.Worker.main(rest);
            case "token" -> token(rest);
            case "backup" -> backup(rest);
            case "restore" -> restore(rest);
            case "migrate" -> migrate(rest);
            case "version", "--version" -> System.out.println("arbor " + Version.current());
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
            fail("usage: arbor token create [--name N] [--data DIR] [--database-url URL]");
            return;
        }
        var flags = new ArrayList<>(arguments.subList(1, arguments.size()));
        String name = "restored admin";
        int at = flags.indexOf("--name");
        if (at >= 0) {
            if (at + 1 >= flags.size() || flags.get(at + 1).isBlank()) {
                fail("--name needs a value");
                return;
            }
            name = flags.remove(at + 1);
            flags.remove(at);
        }
        try {
            StorageSettings config = Config.load(System.getenv(), flags).storage();
            OwnerOnly.folder(config.dataDir());
            try (Database database = Database.open(config)) {
                String secret = Access.createAdminToken(database, Clock.systemUTC(), name);
                System.err.println("arbor: made the admin token '" + name + "'; its secret is shown once:");
                System.out.println(secret);
            }
        } catch (ConfigException e) {
            fail(e.getMessage());
        }
    }

    private static void backup(List<String> arguments) {
        if (arguments.isEmpty() || arguments.getFirst().startsWith("--")) {
            fail("usage: arbor backup DEST [--data DIR]");
            return;
        }
        Path target = Path.of(arguments.getFirst());
        try {
            StorageSettings config = Config.load(System.getenv(), arguments.subList(1, arguments.size()))
                    .storage();
            if (config.databaseUrl().isPresent()) {
                fail("the database is PostgreSQL: back it up with pg_dump (and keep ARBOR_SECRET_KEY with it)");
                return;
            }
            if (Files.exists(target)) {
                fail(target + " exists already; name a new folder");
                return;
            }
            if (!Files.exists(config.dataDir().resolve("arbor.db"))) {
                fail("there is no database in " + config.dataDir());
                return;
            }
            OwnerOnly.folder(target);
            try (Database database = Database.open(config)) {
                database.backupTo(target.resolve("arbor.db"));
            }
            Path key = config.dataDir().resolve("secret.key");
            if (config.secretKey().isEmpty() && Files.exists(key)) {
                Files.copy(key, target.resolve("secret.key"), StandardCopyOption.COPY_ATTRIBUTES);
            }
            // after the database: every file its rows name was on disk before the row was written
            long files = Restore.copyBlobs(config.dataDir(), target);
            System.err.println("arbor: backed up " + config.dataDir() + " into " + target + " (the database and "
                    + files + (files == 1 ? " file" : " files") + ")"
                    + (config.secretKey().isPresent() ? " (the key is ARBOR_SECRET_KEY: keep it with the copy)" : ""));
        } catch (ConfigException e) {
            fail(e.getMessage());
        } catch (IOException e) {
            fail("cannot write " + target + ": " + e.getMessage());
        }
    }

    private static void restore(List<String> arguments) {
        if (arguments.isEmpty() || arguments.getFirst().startsWith("--")) {
            fail("usage: arbor restore SRC [--data DIR]");
            return;
        }
        Path source = Path.of(arguments.getFirst());
        try {
            StorageSettings config = Config.load(System.getenv(), arguments.subList(1, arguments.size()))
                    .storage();
            System.err.println("arbor: " + new Restore(config, Clock.systemUTC()).from(source));
        } catch (ConfigException e) {
            fail(e.getMessage());
        } catch (IOException e) {
            fail("cannot restore " + source + ": " + e.getMessage());
        } catch (UncheckedIOException e) {
            fail("cannot restore " + source + ": " + e.getMessage() + " ("
                    + requireNonNull(e.getCause()).getMessage() + ")");
        }
    }

    private static void migrate(List<String> flags) {
        try {
            StorageSettings config = Config.load(System.getenv(), flags).storage();
            OwnerOnly.folder(config.dataDir());
            // a server of another release must not find its schema changed under it
            Optional<DataFolderLock> lock = DataFolderLock.forSqlite(config, "migrate");
            try (Database database = Database.open(config)) {
                System.out.println(
                        database.readOnly()
                                ? "the schema is newer than this release: left as it is"
                                : "the schema is up to date for arbor " + Version.current());
            } finally {
                lock.ifPresent(DataFolderLock::close);
            }
        } catch (ConfigException e) {
            fail(e.getMessage());
        }
    }

    private static void fail(String message) {
        System.err.println("arbor: " + message);
        System.exit(2);
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
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            LOG.info("stopping: letting requests in flight finish");
                            application.close();
                            LOG.info("stopped");
                            stopped.countDown();
                        },
                        "arbor-shutdown"));
        LOG.info(
                "Arbor {} serving on http://{}:{} (data: {}, database: {})",
                Version.current(),
                config.http().host(),
                application.port(),
                config.storage().dataDir(),
                config.storage().sqlite() ? "sqlite" : "postgresql");
    }
}
