package dev.arbor.routers;

/**
 * The clusters a {@code cluster_ref} may name. Only this server, {@code local}, until clusters can be added; then
 * their registry answers here.
 */
interface Clusters {
    Clusters LOCAL_ONLY = id -> id.equals("local");

    boolean exists(String id);
}
