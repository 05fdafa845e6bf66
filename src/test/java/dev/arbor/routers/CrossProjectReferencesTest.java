package dev.arbor.routers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.arbor.ArborServer;
import dev.arbor.platform.db.Database;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.ParamTypes;
import dev.arbor.testing.StatusWaits;
import dev.arbor.testing.TestServer;
import dev.arbor.testing.TwoProjects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every reference a router's step makes, walked from the action catalogs themselves: each {@code *_ref} param (and
 * each endpoint list) of every router action, given another project's object, is refused when a step is checked
 * ({@code POST /routers/actions/validate}) and when a router is saved, and a router whose stored graph names another
 * project's deployment (saved before references were checked against the project) reaches nothing there when a
 * request comes. A new reference type must say here how far it reaches, or the walk fails.
 *
 * <p>The rule: a router's deployments are its own project's, whoever saves it (an admin too); a {@code project_ref}
 * (delegate) names a project the saver may act in, and the caller's token is checked again per request; the
 * registry's models, providers, credentials and clusters belong to no project and any router may name them. The
 * pipelines, which belong to no project, are for admins alone, and an admin may name anything there.
 */
class CrossProjectReferencesTest {
    private static final String ADMIN = "arb_references_admin";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger NAMES = new AtomicInteger();

    /** How far a reference type reaches. */
    enum Reach {
        /** A deployment: the router's own project, whoever saves it. */
        ROUTER_PROJECT,
        /** A project: one the saver may act in (an admin, any). */
        SAVERS_PROJECTS,
        /** Something of the platform, in no project: any router may name it. */
        PLATFORM
    }

    private static final Map<String, Reach> REFERENCE_TYPES = Map.of(
            "endpoint_ref", Reach.ROUTER_PROJECT,
            "endpoint_ref_list", Reach.ROUTER_PROJECT,
            "endpoint_weighted_list", Reach.ROUTER_PROJECT,
            "endpoint_ordered_list", Reach.ROUTER_PROJECT,
            "project_ref", Reach.SAVERS_PROJECTS,
            "model_ref", Reach.PLATFORM,
            "cloud_model_ref", Reach.PLATFORM,
            "provider_ref", Reach.PLATFORM,
            "credential_ref", Reach.PLATFORM,
            "cluster_ref", Reach.PLATFORM);

    /** The other params an action needs to be saved, beside the reference walked. */
    private static final Map<String, String> COMPANIONS = Map.of("delegate", "\"router\": \"elsewhere\"");

    private static ArborServer server;
    private static TestServer http;
    private static TwoProjects projects;
    private static String ownDeployment;
    private static String theirDeployment;
    private static String theirDeploymentName;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of(
                "ARBOR_ADMIN_TOKEN", ADMIN,
                "ARBOR_TEST_MODELS", "1",
                "ARBOR_NO_DOWNLOADS", "1"));
        http = server.http();
        projects = TwoProjects.create(http, ADMIN);
        ownDeployment = runningDecider(projects.mine(), "own-decider");
        theirDeploymentName = "their-decider";
        theirDeployment = runningDecider(projects.theirs(), theirDeploymentName);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String runningDecider(String project, String name) {
        String id = new AdminFixture(http, ADMIN)
                .create(
                        "/deployments",
                        "{\"project_id\": \"" + project + "\", \"name\": \"" + name
                                + "\", \"model_id\": \"hash-decider\"}");
        StatusWaits.until(http, "/deployments/" + id + "?wait=5", "running", Duration.ofSeconds(120), admin());
        return id;
    }

    /** One reference param of one action of a catalog. */
    record Reference(String action, String param, String type) {
        Reach reach() {
            return REFERENCE_TYPES.get(type);
        }

        /** The param's value naming {@code ref}, and where in it a refusal is: {@code param}, {@code param[0]}. */
        String value(String ref) {
            return switch (type) {
                case "endpoint_ref_list" -> "[\"" + ref + "\"]";
                case "endpoint_weighted_list" -> "[{\"endpoint\": \"" + ref + "\", \"weight\": 1}]";
                case "endpoint_ordered_list" -> "[{\"endpoint\": \"" + ref + "\"}]";
                default -> "\"" + ref + "\"";
            };
        }

        String at() {
            return switch (type) {
                case "endpoint_ref_list" -> param + "[0]";
                case "endpoint_weighted_list", "endpoint_ordered_list" -> param + "[0].endpoint";
                default -> param;
            };
        }

        String params(String ref) {
            String companions = COMPANIONS.containsKey(action) ? COMPANIONS.get(action) + ", " : "";
            return "{" + companions + "\"" + param + "\": " + value(ref) + "}";
        }

        @Override
        public String toString() {
            return action + "." + param + " (" + type + ")";
        }
    }

    private static List<Reference> references(String catalog) {
        JsonNode actions;
        try (InputStream in = CrossProjectReferencesTest.class.getResourceAsStream("/catalog/" + catalog)) {
            actions = JSON.readTree(in).path("actions");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var found = new ArrayList<Reference>();
        for (JsonNode action : actions) {
            for (JsonNode param : action.path("params")) {
                String type = param.path("type").asText();
                if (isReference(type)) {
                    found.add(new Reference(
                            action.path("type").asText(), param.path("name").asText(), type));
                }
            }
        }
        return found;
    }

    private static boolean isReference(String type) {
        return type.endsWith("_ref") || type.startsWith("endpoint_");
    }

    /** The router catalog's references that reach into projects. */
    static Stream<Reference> projectReferences() {
        return references("router-actions.json").stream().filter(r -> r.reach() != Reach.PLATFORM);
    }

    /** Those that name deployments, which a request follows. */
    static Stream<Reference> deploymentReferences() {
        return projectReferences().filter(r -> r.reach() == Reach.ROUTER_PROJECT);
    }

    @Test
    void everyReferenceTypeOfTheContractSaysHowFarItReaches() {
        Set<String> contract = ParamTypes.CONTRACT.stream()
                .filter(CrossProjectReferencesTest::isReference)
                .collect(Collectors.toSet());
        Set<String> used = Stream.concat(
                        references("router-actions.json").stream(), references("pipeline-actions.json").stream())
                .map(Reference::type)
                .collect(Collectors.toSet());

        assertThat(REFERENCE_TYPES.keySet()).isEqualTo(contract).containsAll(used);
        assertThat(projectReferences().map(Reference::type))
                .as("the walk reaches every kind of project reference")
                .contains("endpoint_ref", "endpoint_ref_list", "endpoint_weighted_list", "endpoint_ordered_list")
                .contains("project_ref");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("projectReferences")
    void aMembersCheckOfAStepRefusesAnotherProjectsObject(Reference reference) {
        for (String other : othersObjects(reference)) {
            HttpReply reply = validate(reference, other, member());

            assertThat(errorsAt(reply, "params." + reference.at()))
                    .as("%s naming %s: %s", reference, other, reply.body())
                    .containsExactly("unknown_reference");
        }
        HttpReply own = validate(reference, ownObject(reference), member());
        assertThat(errorsAt(own, "params." + reference.at())).as(own.body()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("projectReferences")
    void aMemberCannotSaveARouterThatNamesAnotherProjectsObject(Reference reference) {
        for (String other : othersObjects(reference)) {
            HttpReply reply = save(reference, other, member());

            assertThat(reply.status()).as(reply.body()).isEqualTo(400);
            assertThat(errorsAt(reply, "dag_config.steps[0].params." + reference.at()))
                    .as("%s naming %s: %s", reference, other, reply.body())
                    .containsExactly("unknown_reference");
        }
        HttpReply own = save(reference, ownObject(reference), member());
        assertThat(own.status()).as(own.body()).isEqualTo(201);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deploymentReferences")
    void anAdminCannotSaveARouterThatNamesAnotherProjectsDeploymentEither(Reference reference) {
        HttpReply checked = validate(reference, theirDeployment, admin());
        HttpReply saved = save(reference, theirDeployment, admin());

        assertThat(errorsAt(checked, "params." + reference.at()))
                .as(checked.body())
                .containsExactly("unknown_reference");
        assertThat(saved.status()).as(saved.body()).isEqualTo(400);
        assertThat(errorsAt(saved, "dag_config.steps[0].params." + reference.at()))
                .as(saved.body())
                .containsExactly("unknown_reference");
    }

    @Test
    void anAdminMayDelegateToAnyProject() {
        Reference delegate = projectReferences()
                .filter(r -> r.type().equals("project_ref"))
                .findFirst()
                .orElseThrow();

        HttpReply saved = save(delegate, projects.theirs(), admin());

        assertThat(saved.status()).as(saved.body()).isEqualTo(201);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deploymentReferences")
    void aStoredRouterNamingAnotherProjectsDeploymentReachesNothingThere(Reference reference) {
        HttpReply saved = save(reference, ownDeployment, admin());
        assertThat(saved.status()).as(saved.body()).isEqualTo(201);
        String router = saved.json().path("id").asText();
        String name = saved.json().path("name").asText();
        // what a router saved before references were checked against its project holds: no request can make it now
        try (Database database = Database.openSqlite(server.dataDir().resolve("arbor.db"))) {
            database.update(handle -> handle.createUpdate("UPDATE routers SET dag_config = replace(dag_config, :own, "
                            + ":theirs), modified_at = modified_at + 1 WHERE id = :id")
                    .bind("own", ownDeployment)
                    .bind("theirs", theirDeployment)
                    .bind("id", router)
                    .execute());
        }
        ((Routers) server.activeRouters()).reload();

        for (String path : List.of("/v1/chat/completions", "/v1/embeddings")) {
            HttpReply reply = http.post(path, body(path, name), member());

            // their deployment would refuse the request itself (it only decides), 400 model_capability_unsupported
            reply.assertError(502, "upstream_unavailable", null);
            assertThat(reply.header("x-router-id")).isEqualTo(router);
        }
    }

    @Test
    void aMemberCannotMakeOrCheckPipelinesWhoseStepsNameAnything() {
        // pipelines belong to no project: only admins make them, and an admin may name any project's deployment
        for (Reference reference : references("pipeline-actions.json")) {
            HttpReply checked = http.post(
                    "/pipelines/actions/validate",
                    "{\"action_type\": \"" + reference.action() + "\", \"params\": " + reference.params(theirDeployment)
                            + "}",
                    member());

            checked.assertError(403, "admin_required", null);
        }
        http.post("/pipelines", "{\"name\": \"reach\", \"steps\": []}", member())
                .assertError(403, "admin_required", null);
    }

    private static String body(String path, String model) {
        return path.endsWith("embeddings")
                ? "{\"model\": \"" + model + "\", \"input\": \"hi\"}"
                : "{\"model\": \"" + model + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";
    }

    /** Another project's objects of the reference's kind: a deployment by id and by name, or a project. */
    private static List<String> othersObjects(Reference reference) {
        return reference.reach() == Reach.ROUTER_PROJECT
                ? List.of(theirDeployment, theirDeploymentName)
                : List.of(projects.theirs());
    }

    private static String ownObject(Reference reference) {
        return reference.reach() == Reach.ROUTER_PROJECT ? ownDeployment : projects.mine();
    }

    private static HttpReply validate(Reference reference, String ref, String[] caller) {
        return http.post(
                "/routers/actions/validate",
                "{\"action_type\": \"" + reference.action() + "\", \"params\": " + reference.params(ref) + "}",
                TestServer.with(caller, "X-Project-Id", projects.mine()));
    }

    private static HttpReply save(Reference reference, String ref, String[] caller) {
        return http.post(
                "/routers",
                "{\"project_id\": \"" + projects.mine() + "\", \"name\": \"refs-" + NAMES.incrementAndGet()
                        + "\", \"dag_config\": {\"entry_step\": \"s\", \"steps\": [{\"step_id\": \"s\", "
                        + "\"action_type\": \"" + reference.action() + "\", \"params\": " + reference.params(ref)
                        + "}]}}",
                caller);
    }

    /** The codes of the problems at {@code param}, from a validation's errors or an error's details. */
    private static List<String> errorsAt(HttpReply reply, String param) {
        JsonNode json = reply.json();
        JsonNode problems =
                json.has("errors") ? json.path("errors") : json.path("error").path("details");
        var codes = new ArrayList<String>();
        for (JsonNode problem : problems) {
            if (problem.path("param").asText().equals(param)) {
                codes.add(problem.path("code").asText());
            }
        }
        return codes;
    }

    private static String[] member() {
        return new String[] {"Authorization", "Bearer " + projects.memberSecret()};
    }

    private static String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN};
    }
}
