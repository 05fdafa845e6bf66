package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.clusters.Clusters;
import dev.arbor.credentials.Credentials;
import dev.arbor.models.Model;
import dev.arbor.models.ModelOperations;
import dev.arbor.models.Models;
import dev.arbor.studio.Studio;
import java.util.List;
import java.util.function.Predicate;

/** Where the things a router refers to are looked up: each owner answers for its own, routers read no table of theirs. */
final class Lookups {
    private final Models models;
    private final Credentials credentials;
    private final Access access;
    private final Studio studio;
    private final Clusters clusters;
    private final Endpoints deployments;

    Lookups(
            Models models,
            Credentials credentials,
            Access access,
            Studio studio,
            Clusters clusters,
            Endpoints deployments) {
        this.models = requireNonNull(models, "models");
        this.credentials = requireNonNull(credentials, "credentials");
        this.access = requireNonNull(access, "access");
        this.studio = requireNonNull(studio, "studio");
        this.clusters = requireNonNull(clusters, "clusters");
        this.deployments = requireNonNull(deployments, "deployments");
    }

    boolean model(String id) {
        return models.find(id).isPresent();
    }

    boolean cloudModel(String id) {
        return models.find(id).filter(Lookups::cloud).isPresent();
    }

    /** A cloud model of the registry (any project may call those), or a running deployment in a project accepted. */
    boolean endpoint(Predicate<String> inProject, String ref) {
        return cloudModel(ref) || deployments.exists(inProject, ref);
    }

    boolean credential(String ref) {
        return credentials.exists(ref);
    }

    boolean project(String id) {
        return access.unknownProjects(List.of(id)).isEmpty();
    }

    boolean cluster(String id) {
        return clusters.exists(id);
    }

    /** A provider known by name, or the API URL a cloud model of the registry is added from. */
    boolean provider(String ref) {
        return ModelOperations.providerUrl(ref).isPresent()
                || !models.ofProvider(ref).isEmpty();
    }

    /** The ids of the registry's cloud models from this provider, in the registry's order. */
    List<String> providerModels(String provider) {
        return models.ofProvider(provider).stream().map(Model::id).toList();
    }

    boolean template(String reference) {
        return studio.hasTemplate(reference);
    }

    private static boolean cloud(Model model) {
        return model.source().equals("cloud");
    }
}
