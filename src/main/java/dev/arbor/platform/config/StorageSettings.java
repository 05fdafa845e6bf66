package dev.arbor.platform.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the server keeps its state.
 *
 * @param dataDir the data folder: the SQLite database, the generated key, models, files
 * @param databaseUrl PostgreSQL when set; otherwise SQLite in the data folder
 * @param secretKey base64 AES key for secrets at rest; otherwise a generated key file in the data folder
 */
public record StorageSettings(Path dataDir, Optional<String> databaseUrl, Optional<String> secretKey) {
    public StorageSettings {
        requireNonNull(dataDir, "dataDir");
        requireNonNull(databaseUrl, "databaseUrl");
        requireNonNull(secretKey, "secretKey");
    }

    /** Whether the database is the SQLite file in the data folder. */
    public boolean sqlite() {
        return databaseUrl.isEmpty();
    }
}
