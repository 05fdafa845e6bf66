package dev.arbor.platform.references;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Set;

/**
 * Who refers to a model or a credential, asked by their owners before they delete one: the owner keeps no knowledge
 * of what refers to it (routers, deployments), and the referrers see no more than the ids and names they are asked about.
 */
public interface Referrers {
    /** What is referred to. */
    enum Kind {
        MODEL,
        CREDENTIAL
    }

    /** One thing that refers: a router, in its project. */
    record Referrer(String type, String id, String name, String projectId) {
        public Referrer {
            requireNonNull(type, "type");
            requireNonNull(id, "id");
            requireNonNull(name, "name");
            requireNonNull(projectId, "projectId");
        }
    }

    /** What uses any of these names of one thing now (a model's id; a credential's id and name). */
    List<Referrer> inUse(Kind kind, Set<String> names);

    /** Makes what uses any of these names stop using it (an active router becomes inactive); what changed. */
    List<Referrer> release(Kind kind, Set<String> names);

    /** The referrers of every one of these, in order: what a model's owner asks (routers, deployments). */
    static Referrers all(List<Referrers> each) {
        List<Referrers> every = List.copyOf(each);
        return new Referrers() {
            @Override
            public List<Referrer> inUse(Kind kind, Set<String> names) {
                return every.stream()
                        .flatMap(r -> r.inUse(kind, names).stream())
                        .toList();
            }

            @Override
            public List<Referrer> release(Kind kind, Set<String> names) {
                return every.stream()
                        .flatMap(r -> r.release(kind, names).stream())
                        .toList();
            }
        };
    }
}
