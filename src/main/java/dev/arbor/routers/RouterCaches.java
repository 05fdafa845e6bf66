package dev.arbor.routers;

/** The answers routers' cache steps kept (the routing runtime keeps them; the router routes empty them). */
@FunctionalInterface
public interface RouterCaches {
    /** Drops every answer the router's cache steps kept; how many. */
    int clear(String routerId);
}
