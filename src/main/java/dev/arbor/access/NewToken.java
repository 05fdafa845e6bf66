package dev.arbor.access;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The body of a new API token: its fields, declared once, and the rules beyond them (the projects it names exist, an
 * admin's names none, it expires in the future). Every problem of the body at once.
 *
 * @param expiresAtMillis when it stops working; empty for never
 * @param warnings about the body's fields nobody asked for
 */
record NewToken(String name, Role role, List<String> projects, Optional<Long> expiresAtMillis, List<Warning> warnings) {
    /** The last second of the year 9999 (Unix seconds): the latest {@code expires_at} a token may have. */
    private static final long LAST_SECOND = 253_402_300_799L;

    private static final BodyField.Text NAME = BodyField.text(REQUIRED, "name", AccessRoutes.MAX_NAME);
    private static final BodyField.Choice ROLE = BodyField.choice(
            REQUIRED, "role", Stream.of(Role.values()).map(Role::wire).toList(), "must be 'admin' or 'member'");
    private static final BodyField.Texts PROJECTS = BodyField.texts(OPTIONAL, "projects", 1000, 100);
    private static final BodyField.Whole EXPIRES_AT = BodyField.integer(OPTIONAL, "expires_at", 0, LAST_SECOND);
    static final BodySpec SPEC = BodySpec.of(NAME, ROLE, PROJECTS, EXPIRES_AT);

    NewToken {
        requireNonNull(name, "name");
        requireNonNull(role, "role");
        projects = List.copyOf(projects);
        requireNonNull(expiresAtMillis, "expiresAtMillis");
        warnings = List.copyOf(warnings);
    }

    /** Reads {@code body}, checking the projects it names against {@code known}. */
    static NewToken read(ObjectNode body, ProjectStore known) {
        BodyReader reader = SPEC.reader(body);
        Optional<String> name = NAME.read(reader);
        Optional<Role> role = ROLE.read(reader).map(text -> Role.parse(text).orElseThrow());
        List<String> projectIds = PROJECTS.read(reader).orElse(List.of());
        for (int i = 0; i < projectIds.size(); i++) {
            if (known.find(projectIds.get(i)).isEmpty()) {
                reader.rejectItem(
                        "projects", i, ErrorCode.INVALID_FIELD, "names no project ('" + projectIds.get(i) + "')");
            }
        }
        if (role.orElse(null) == Role.ADMIN && !projectIds.isEmpty()) {
            reader.reject("projects", ErrorCode.INVALID_FIELD, "must be empty for an admin, who may use every project");
        }
        Optional<Long> expiresAt = EXPIRES_AT.read(reader);
        long now = System.currentTimeMillis() / 1000;
        if (expiresAt.isPresent() && expiresAt.get() <= now) {
            reader.reject("expires_at", ErrorCode.INVALID_FIELD, "must be in the future (Unix seconds)");
        }
        List<Warning> warnings = reader.finish();
        return new NewToken(
                name.orElseThrow(), role.orElseThrow(), projectIds, expiresAt.map(seconds -> seconds * 1000), warnings);
    }
}
