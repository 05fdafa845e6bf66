package dev.arbor.platform.instances;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.timers.Repeating;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers that use this database, this one among them, so that work a server owns while it runs it (background
 * decisions) can be given up as failed once that server is gone, and never while it runs. Each start registers under
 * a new id; on PostgreSQL, where replicas share the database, it refreshes a heartbeat every interval, and a server
 * whose heartbeat is {@value #MISSED_BEATS} intervals old is counted as stopped. The heartbeat is the database's
 * time, so that replicas' clocks need not agree. A server that closes removes its row; one restarted on the same
 * machine and data folder recognises its previous life at once (its process no longer runs). On SQLite one server
 * holds the data folder, so every other row is a server that stopped, and no heartbeat is kept.
 */
public final class ServerInstances implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServerInstances.class);
    /** Heartbeats a server may miss before the others count it as stopped. */
    static final int MISSED_BEATS = 4;

    /** A server found stopped, and how it was known, in words an error message can carry. */
    public record Stopped(String id, String why) {
        public Stopped {
            requireNonNull(id, "id");
            requireNonNull(why, "why");
        }
    }

    private final Database database;
    private final Duration heartbeat;
    private final String id = Ids.next("srv");
    private final ProcessName self;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("arbor-heartbeat").factory());
    private volatile boolean beating = true;
    /** Where other servers reach this one, once it listens. */
    private volatile Optional<URI> address = Optional.empty();
    /** Other servers' addresses as read: a server's address never changes (a restart registers a new id). */
    private final Map<String, URI> addresses = new ConcurrentHashMap<>();

    /**
     * @param dataDir this server's data folder: a server started again on it is the same server's next life
     * @param heartbeat how often this server says it runs, on a database replicas share
     */
    public ServerInstances(Database database, Path dataDir, Duration heartbeat) {
        this.database = requireNonNull(database, "database");
        this.self = ProcessName.current(requireNonNull(dataDir, "dataDir"));
        this.heartbeat = requireNonNull(heartbeat, "heartbeat");
        if (heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("the heartbeat interval must be positive, not " + heartbeat);
        }
    }

    /** This server's id for as long as it runs; the next start has another. */
    public String id() {
        return id;
    }

    /** How often this server's heartbeat is refreshed, and so how often others look for stopped servers. */
    public Duration heartbeat() {
        return heartbeat;
    }

    /**
     * Whether the server registered as {@code serverId} may still run: it is this one or, on a shared database, its row
     * is there (a server found stopped is forgotten, see {@link #forgetStopped}). On SQLite only this one runs.
     */
    public boolean registered(String serverId) {
        requireNonNull(serverId, "serverId");
        return serverId.equals(id)
                || shared()
                        && database.read(handle -> handle.createQuery(
                                                "SELECT count(*) FROM server_instances WHERE id = :id")
                                        .bind("id", serverId)
                                        .mapTo(Integer.class)
                                        .one())
                                > 0;
    }

    /** Whether other servers may share the database, and so whether anything must wait for a heartbeat. */
    public boolean shared() {
        return !database.dialect().singleNode();
    }

    /** Registers this server and, on a shared database, starts its heartbeat; nothing on a read-only database. */
    public void start() {
        if (database.readOnly()) {
            return;
        }
        register();
        if (shared()) {
            Repeating.every(timer, heartbeat, heartbeat, "the heartbeat", this::beat);
        }
    }

    private void register() {
        database.update(handle -> handle.createUpdate(
                        "INSERT INTO server_instances (id, place, pid, process_started_at, address) "
                                + "VALUES (:id, :place, :pid, :started, :address)")
                .bind("id", id)
                .bind("place", self.place())
                .bind("pid", self.pid())
                .bind("started", self.startedAtMillis().orElse(null))
                .bind("address", address.map(URI::toString).orElse(null))
                .execute());
    }

    /**
     * Records where other servers reach this one ({@code http://host:port}, its own address rather than a load
     * balancer's), once it listens; nothing on a read-only database.
     */
    public void advertise(URI address) {
        this.address = Optional.of(requireNonNull(address, "address"));
        if (database.readOnly()) {
            return;
        }
        database.update(handle -> handle.createUpdate("UPDATE server_instances SET address = :address WHERE id = :id")
                .bind("address", address.toString())
                .bind("id", id)
                .execute());
    }

    /**
     * Where the registered server {@code serverId} is reached; empty when it is not registered (stopped) or has not
     * said yet. Read once per server, then from memory.
     */
    public Optional<URI> address(String serverId) {
        requireNonNull(serverId, "serverId");
        URI known = addresses.get(serverId);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<URI> read = database.read(handle -> handle.createQuery(
                                "SELECT address FROM server_instances WHERE id = :id AND address IS NOT NULL")
                        .bind("id", serverId)
                        .mapTo(String.class)
                        .findOne())
                .map(URI::create);
        read.ifPresent(found -> addresses.put(serverId, found));
        return read;
    }

    private void beat() {
        try {
            int refreshed = database.write(handle -> handle.createUpdate(
                            "UPDATE server_instances SET heartbeat_at = CURRENT_TIMESTAMP WHERE id = :id")
                    .bind("id", id)
                    .execute());
            if (refreshed == 0 && beating) {
                // counted as stopped while it could not beat (a long pause): what it ran then was failed already
                LOG.warn(
                        "another server counted this one ({}) as stopped after missed heartbeats; it registers again",
                        id);
                register();
            }
        } catch (ApiException e) {
            LOG.debug("this server's heartbeat could not be written: {}", e.getMessage()); // the database logged why
        } catch (RuntimeException e) {
            LOG.warn("this server's heartbeat could not be written", e);
        }
    }

    /**
     * Forgets the servers that have stopped and returns them, so that the caller gives up what they left unfinished:
     * on SQLite every server but this one; on PostgreSQL those whose heartbeat is {@value #MISSED_BEATS} intervals
     * old, and this server's previous lives (its process no longer runs).
     */
    public List<Stopped> forgetStopped() {
        long staleMillis = heartbeat.toMillis() * MISSED_BEATS;
        List<Stopped> stopped = database.read(handle -> handle
                .createQuery("SELECT id, place, pid, process_started_at, "
                        + database.dialect().millisSince("heartbeat_at")
                        + " AS silent_ms "
                        + "FROM server_instances WHERE id <> :id")
                .bind("id", id)
                .map((rs, ctx) -> {
                    String other = rs.getString("id");
                    if (!shared()) {
                        return Optional.of(new Stopped(other, "its server, " + other + ", no longer runs"));
                    }
                    Object started = rs.getObject("process_started_at");
                    var name = new ProcessName(
                            rs.getString("place"),
                            rs.getLong("pid"),
                            started == null ? Optional.empty() : Optional.of(((Number) started).longValue()));
                    if (name.place().equals(self.place()) && !name.runs()) {
                        return Optional.of(new Stopped(
                                other, "its server, " + other + ", no longer runs on this machine and data folder"));
                    }
                    long silent = rs.getLong("silent_ms");
                    return silent > staleMillis
                            ? Optional.of(new Stopped(
                                    other,
                                    "its server, " + other + ", sent no heartbeat for " + silent / 1000
                                            + " s (stopped after " + staleMillis / 1000 + " s)"))
                            : Optional.<Stopped>empty();
                })
                .list()
                .stream()
                .flatMap(Optional::stream)
                .toList());
        stopped.forEach(gone -> addresses.remove(gone.id()));
        if (!stopped.isEmpty()) {
            database.update(handle -> handle.createUpdate("DELETE FROM server_instances WHERE id IN (<ids>)")
                    .bindList("ids", stopped.stream().map(Stopped::id).toList())
                    .execute());
        }
        return stopped;
    }

    /** Stops the heartbeat and removes this server's row: what it leaves unfinished is others' to give up. */
    @Override
    public void close() {
        beating = false;
        timer.shutdownNow();
        if (database.readOnly()) {
            return;
        }
        try {
            database.update(handle -> handle.createUpdate("DELETE FROM server_instances WHERE id = :id")
                    .bind("id", id)
                    .execute());
        } catch (RuntimeException e) {
            LOG.warn(
                    "this server's registration could not be removed; others count it as stopped after its heartbeat"
                            + " is stale: {}",
                    e.getMessage());
        }
    }

    /**
     * A server's process, named so that the next server on the same machine and data folder can tell whether it
     * still runs: where it runs (the host name, the machine's boot and the process namespace, as two containers on
     * one host differ in the last, then the data folder), its pid and when it started (a pid is used again; a
     * container's first process has the same one each start).
     */
    record ProcessName(String place, long pid, Optional<Long> startedAtMillis) {
        static ProcessName current(Path dataDir) {
            ProcessHandle process = ProcessHandle.current();
            return new ProcessName(
                    machine() + " " + dataDir.toAbsolutePath().normalize(),
                    process.pid(),
                    process.info().startInstant().map(Instant::toEpochMilli));
        }

        /** Whether this process runs; when its start time cannot be compared, a live pid counts as running. */
        boolean runs() {
            Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
            if (process.isEmpty()) {
                return false;
            }
            Optional<Instant> started = process.get().info().startInstant();
            return startedAtMillis.isEmpty()
                    || started.isEmpty()
                    || started.get().toEpochMilli() == startedAtMillis.get();
        }

        private static String machine() {
            var parts = new ArrayList<String>();
            try {
                parts.add(InetAddress.getLocalHost().getHostName());
            } catch (IOException e) {
                parts.add("unknown-host");
            }
            try {
                parts.add("boot "
                        + Files.readString(Path.of("/proc/sys/kernel/random/boot_id"))
                                .strip());
                parts.add(Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString());
            } catch (IOException | UnsupportedOperationException e) {
                // not Linux: the host name alone names the machine
            }
            return String.join(" ", parts);
        }
    }
}
