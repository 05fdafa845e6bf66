package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Access;
import dev.arbor.connectors.gateways.Gateway.Scope;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The checks of a gateway's scope and clients beyond reading their fields, out of the routes (issue 37's route
 * shape): a scope's projects must exist and a global scope names none; clients are the surfaces that may use it.
 * Each problem is added at its field; the caller throws them together.
 */
final class GatewayValidator {
    /** The surfaces a gateway may serve. */
    static final Set<String> CLIENTS = Set.of("studio", "prompt");

    private final Access access;

    GatewayValidator(Access access) {
        this.access = requireNonNull(access, "access");
    }

    /** Contract 2.1's scope: {@code enabled}, {@code global}, {@code projects}; fields left out keep their value. */
    Scope scope(JsonNode json, Scope current, Problems problems) {
        if (json.isMissingNode() || json.isNull()) {
            return current;
        }
        if (!json.isObject()) {
            problems.add(ErrorCode.INVALID_FIELD, "scope", "`scope` must be {enabled, global, projects}.");
            return current;
        }
        problems.unknownFields(json, Set.of("enabled", "global", "projects"), "scope", "a scope");
        boolean enabled = flag(json, "enabled", current.enabled(), problems);
        boolean global = flag(json, "global", current.global(), problems);
        var projects = new LinkedHashSet<>(json.has("projects") ? List.of() : current.projects());
        JsonNode given = json.path("projects");
        if (!given.isMissingNode() && !given.isArray()) {
            problems.add(
                    ErrorCode.INVALID_FIELD, "scope.projects", "`scope.projects` must be a list of project " + "ids.");
        }
        for (int i = 0; given.isArray() && i < given.size(); i++) {
            if (!given.get(i).isTextual()) {
                String at = ParamPath.index("scope.projects", i);
                problems.add(ErrorCode.INVALID_FIELD, at, "`" + at + "` must be a project id.");
            } else {
                projects.add(given.get(i).textValue());
            }
        }
        var ordered = new ArrayList<>(projects);
        for (String unknown : access.unknownProjects(ordered)) {
            String at = ParamPath.index("scope.projects", ordered.indexOf(unknown));
            problems.add(ErrorCode.INVALID_FIELD, at, "`" + at + "` names no project ('" + unknown + "').");
        }
        if (global && !projects.isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "scope.projects",
                    "`scope.projects` must be empty for a global "
                            + "scope: a global gateway is shared with every project.");
        }
        return new Scope(enabled, global, ordered);
    }

    private static boolean flag(JsonNode json, String field, boolean current, Problems problems) {
        JsonNode value = json.path(field);
        if (value.isMissingNode()) {
            return current;
        }
        if (!value.isBoolean()) {
            problems.add(ErrorCode.INVALID_FIELD, "scope." + field, "`scope." + field + "` must be true or false.");
            return current;
        }
        return value.booleanValue();
    }

    static List<String> clients(JsonNode json, List<String> current, Problems problems) {
        if (json.isMissingNode() || json.isNull()) {
            return current;
        }
        var clients = new LinkedHashSet<String>();
        boolean ok = json.isArray();
        for (JsonNode client : json) {
            ok &= client.isTextual() && CLIENTS.contains(client.textValue());
            clients.add(client.asText());
        }
        if (!ok) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "clients",
                    "`clients` must list the surfaces that may use the " + "gateway: studio, prompt.");
            return current;
        }
        return List.copyOf(clients);
    }
}
