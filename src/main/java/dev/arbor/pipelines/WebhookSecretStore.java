package dev.arbor.pipelines;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.platform.webhooks.StandardWebhookSignature;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jdbi.v3.core.Handle;

/**
 * The SQL of pipelines' webhook secrets, sealed at rest. A pipeline has at most two valid secrets: its current one and,
 * for a grace window after a rotation, the one that rotation replaced, so that callers switching to the new secret
 * lose no call.
 */
final class WebhookSecretStore {
    private final Database database;
    private final SecretBox box;
    private final Clock clock;

    /** A pipeline's webhook as its reads show it: never the secret itself. */
    record State(String pipelineId, OptionalLong secretCreatedAt, OptionalLong previousRetiresAt) {
        boolean enabled() {
            return secretCreatedAt.isPresent();
        }
    }

    WebhookSecretStore(Database database, SecretBox box, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.box = requireNonNull(box, "box");
        this.clock = requireNonNull(clock, "clock");
    }

    /**
     * Makes a new current secret and returns it (the only time its text leaves the database); the secret it replaces
     * stays valid for {@code graceMillis} (none when 0), and any older one ends now.
     */
    String rotate(String pipelineId, long graceMillis) {
        String secret = StandardWebhookSignature.newSecret();
        String id = Ids.next("whs");
        long now = clock.millis();
        database.write(handle -> {
            handle.createUpdate("DELETE FROM pipeline_webhook_secrets WHERE pipeline_id = :p AND "
                            + (graceMillis > 0 ? "retires_at IS NOT NULL" : "1 = 1"))
                    .bind("p", pipelineId)
                    .execute();
            handle.createUpdate("UPDATE pipeline_webhook_secrets SET retires_at = :at WHERE pipeline_id = :p")
                    .bind("at", now + graceMillis)
                    .bind("p", pipelineId)
                    .execute();
            handle.createUpdate(
                            "INSERT INTO pipeline_webhook_secrets (id, pipeline_id, secret, created_at, retires_at) "
                                    + "VALUES (:id, :p, :secret, :now, NULL)")
                    .bind("id", id)
                    .bind("p", pipelineId)
                    .bind("secret", box.seal(secret, context(id)))
                    .bind("now", now)
                    .execute();
            return null;
        });
        return secret;
    }

    /** Ends every secret of a pipeline: its webhook takes no calls until a new one is made. */
    void remove(String pipelineId) {
        database.write(handle -> handle.createUpdate("DELETE FROM pipeline_webhook_secrets WHERE pipeline_id = :p")
                .bind("p", pipelineId)
                .execute());
    }

    State state(String pipelineId) {
        long now = clock.millis();
        return database.read(handle -> {
            OptionalLong created = single(
                    handle,
                    "SELECT created_at FROM pipeline_webhook_secrets WHERE "
                            + "pipeline_id = :p AND retires_at IS NULL AND created_at <= :now",
                    pipelineId,
                    now);
            OptionalLong retires = single(
                    handle,
                    "SELECT retires_at FROM pipeline_webhook_secrets WHERE "
                            + "pipeline_id = :p AND retires_at > :now ORDER BY retires_at DESC LIMIT 1",
                    pipelineId,
                    now);
            return new State(pipelineId, created, retires);
        });
    }

    /** The secrets a call to the pipeline's webhook may be signed with now, opened. */
    List<String> valid(String pipelineId) {
        long now = clock.millis();
        return database.read(handle -> handle.createQuery("SELECT id, secret FROM pipeline_webhook_secrets WHERE "
                        + "pipeline_id = :p AND (retires_at IS NULL OR retires_at > :now)")
                .bind("p", pipelineId)
                .bind("now", now)
                .map((rs, ctx) -> box.open(rs.getString("secret"), context(rs.getString("id"))))
                .list());
    }

    private static OptionalLong single(Handle handle, String sql, String pipelineId, long now) {
        Optional<Long> value = handle.createQuery(sql)
                .bind("p", pipelineId)
                .bind("now", now)
                .mapTo(Long.class)
                .findFirst();
        return value.map(OptionalLong::of).orElse(OptionalLong.empty());
    }

    private static String context(String secretId) {
        return "pipeline-webhook-secret:" + secretId;
    }
}
