package dev.arbor.pipelines.runs;

import dev.arbor.testing.TestPostgres;
import java.util.Map;

class RunsOnPostgresTest extends RunContract {
    @Override
    Map<String, String> environment() {
        return Map.of("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
    }
}
