package dev.arbor;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The package rules of the layout, checked on the main classes: no package cycles; the platform knows no feature;
 * a feature reaches another only through its facade; only the wiring starts the HTTP server.
 */
class ArchitectureTest {
    private static final String ROOT = "dev.arbor";
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);

    /**
     * The types a feature publishes from a package below its root, for other features to call: the contract every
     * model answers and the runtime that runs models (models), the paths a trigger's filter reads in an event
     * (events), and what the studio asks of deployed models, which inference answers (studio).
     */
    private static final Set<String> PUBLISHED = Set.of(
            "dev.arbor.models.engines.Scoring",
            "dev.arbor.models.engines.ReplicaSet",
            "dev.arbor.models.engines.EngineKind",
            "dev.arbor.models.runtime.ModelRuntime",
            "dev.arbor.events.providers.PayloadPath",
            "dev.arbor.studio.running.DeployedModels",
            "dev.arbor.studio.running.DeployedReplicas");

    @Test
    void packagesFormNoCycles() {
        slices().matching("dev.arbor.(**)")
                .should()
                .beFreeOfCycles()
                .as("the packages of dev.arbor depend on each other without cycles")
                .check(MAIN);
    }

    @Test
    void platformKnowsNoFeature() {
        noClasses()
                .that()
                .resideInAPackage("dev.arbor.platform..")
                .should()
                .dependOnClassesThat(resideInAPackage("dev.arbor..").and(not(resideInAPackage("dev.arbor.platform.."))))
                .as("the platform depends on no feature and not on the wiring")
                .check(MAIN);
    }

    @Test
    void featuresReachEachOtherOnlyThroughTheirFacades() {
        classes()
                .should(reachOtherFeaturesOnlyThroughTheirFacades())
                .as("a feature reaches another only through its root package (its facade) or the types it publishes")
                .check(MAIN);
    }

    @Test
    void onlyTheWiringUsesTheHttpServer() {
        noClasses()
                .that()
                .resideOutsideOfPackages(ROOT, "dev.arbor.platform.http.server..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.arbor.platform.http.server..")
                .as("only the wiring (Arbor, Application, Config) uses platform.http.server")
                .check(MAIN);
    }

    @Test
    void onlyTheHttpServerUsesJavalinAndJettyServers() {
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.arbor.platform.http.server..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.eclipse.jetty.server..")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName("io.javalin.Javalin")
                .as("only platform.http.server builds and runs the Javalin and Jetty servers")
                .check(MAIN);
    }

    /** The feature a class belongs to: the package right below dev.arbor, other than the platform. */
    private static Optional<String> feature(JavaClass type) {
        String pkg = type.getPackageName();
        if (!pkg.startsWith(ROOT + ".") || pkg.startsWith(ROOT + ".platform")) {
            return Optional.empty();
        }
        String below = pkg.substring(ROOT.length() + 1);
        int dot = below.indexOf('.');
        return Optional.of(dot < 0 ? below : below.substring(0, dot));
    }

    private static boolean facadeOf(JavaClass target, String feature) {
        String topLevel = target.getName().split("\\$", 2)[0];
        return target.getPackageName().equals(ROOT + "." + feature) || PUBLISHED.contains(topLevel);
    }

    private static ArchCondition<JavaClass> reachOtherFeaturesOnlyThroughTheirFacades() {
        return new ArchCondition<>("reach other features only through their facades") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                Optional<String> from = feature(origin);
                if (from.isEmpty()) {
                    return;
                }
                for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                    JavaClass target = dependency.getTargetClass().getBaseComponentType();
                    Optional<String> to = feature(target);
                    if (to.isPresent() && !to.equals(from) && !facadeOf(target, to.get())) {
                        events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()));
                    }
                }
            }
        };
    }
}
