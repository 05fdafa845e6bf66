package dev.arbor.platform.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Where the server keeps its state.
 *
 * @param dataDir the data folder: the SQLite database, the generated key, models, files
 * @param databaseUrl PostgreSQL when set; otherwise SQLite in the data folder
 * @param secretKey base64 AES key for secrets at rest; otherwise a generated key file in the data folder
 * @param pool PostgreSQL's connections: how many at most, and how long a request waits for one
 */
public record StorageSettings(Path dataDir, Optional<String> databaseUrl, Optional<String> secretKey, Pool pool) {
    public StorageSettings {
        requireNonNull(dataDir, "dataDir");
        requireNonNull(databaseUrl, "databaseUrl");
        requireNonNull(secretKey, "secretKey");
        requireNonNull(pool, "pool");
    }

    public StorageSettings(Path dataDir, Optional<String> databaseUrl, Optional<String> secretKey) {
        this(dataDir, databaseUrl, secretKey, Pool.DEFAULT);
    }

    /**
     * PostgreSQL's connection pool. A request that finds every connection in use waits up to {@code timeout}, then
     * answers 503 {@code database_unavailable}: more connections let more queries run at once, a longer timeout rides out
     * a burst, at the price of slower answers when the database is down.
     */
    public record Pool(int size, Duration timeout) {
        public static final Pool DEFAULT = new Pool(10, Duration.ofSeconds(5));

        public Pool {
            requireNonNull(timeout, "timeout");
            if (size < 1 || timeout.toMillis() < 250) {
                throw new IllegalArgumentException("a pool needs a connection and a wait of at least 250 ms");
            }
        }
    }

    /** Whether the database is the SQLite file in the data folder. */
    public boolean sqlite() {
        return databaseUrl.isEmpty();
    }
}
