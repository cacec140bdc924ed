package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One tenant's database cluster (an embedded PostgreSQL this test starts) is shut down while two
 * other tenants on the same node keep writing: they are served all the while, and the stopped
 * tenant is served again once its cluster is back. Each tenant's writer commits five events every
 * 20 ms; the figures (published per second and commit-to-publish latency of each tenant, before,
 * during and after the stop) are printed, not asserted: the assertions are that every event was
 * published, the steady tenants' during the stop.
 *
 * <p>The stop lasts as many seconds as the system property {@value #STOP_PROPERTY} says, 10 by
 * default, between two phases of 5 s (after a warm-up of 5 s); the minute is {@code mvn -B
 * -o -q -pl outbox-fleet -am test-compile surefire:test -Dtest=FleetTenantIsolationTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dtxoutbox.fleet.tenant-stop-seconds=60}.
 */
class FleetTenantIsolationTest {

  static final String STOP_PROPERTY = "txoutbox.fleet.tenant-stop-seconds";
  private static final Duration STOP = Duration.ofSeconds(Long.getLong(STOP_PROPERTY, 10));
  private static final Duration PHASE = Duration.ofSeconds(5);
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final String CONTROL_SCHEMA = "fleet_isolation";
  private static final List<String> STEADY = List.of("steady1", "steady2");
  private static final String STOPPED = "stopped";

  @TempDir static Path dir;

  private static FleetDatabases databases;
  private static String controlUrl;
  private static String steadyUrl;
  private static int port;
  private static EmbeddedPostgres stoppedCluster;

  /** Event id to the time its transaction committed (System.nanoTime). */
  private final Map<UUID, Long> committed = new ConcurrentHashMap<>();

  /** Event id to the time the publisher first saw it. */
  private final Map<UUID, Long> published = new ConcurrentHashMap<>();

  /** Event id to its tenant. */
  private final Map<UUID, String> tenantOf = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    databases = new FleetDatabases();
    controlUrl = databases.create("isocontrol");
    steadyUrl = databases.create("isosteady");
    for (String s : STEADY) {
      FleetDatabases.migrateOutbox(steadyUrl, s);
    }
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    stoppedCluster = startCluster();
    OutboxSchema.migrate(stoppedCluster.getPostgresDatabase(), STOPPED);
  }

  @AfterAll
  static void stop() throws Exception {
    databases.close();
    if (stoppedCluster != null) {
      stoppedCluster.close();
    }
  }

  /** The stopped tenant's cluster, on the same port and data directory at every start. */
  private static EmbeddedPostgres startCluster() throws IOException {
    return EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dir.resolve("stopped-tenant"))
        .setCleanDataDirectory(false)
        .setServerConfig("max_connections", "40")
        .start();
  }

  private static String stoppedUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  @Test
  void aStoppedTenantClusterDoesNotSlowTheOthers() throws Exception {
    DataSource control = FleetDatabases.dataSource(controlUrl);
    FleetSchema.migrate(control, CONTROL_SCHEMA);
    FleetRegistry registry = FleetRegistry.create(control, CONTROL_SCHEMA);
    for (String s : STEADY) {
      registry.add(
          FleetOutbox.builder(s)
              .jdbcUrl(steadyUrl)
              .user("postgres")
              .schema(s)
              .publisher("timing")
              .build());
    }
    registry.add(
        FleetOutbox.builder(STOPPED)
            .jdbcUrl(stoppedUrl() + "?connectTimeout=2")
            .user("postgres")
            .schema(STOPPED)
            .publisher("timing")
            .build());
    Publisher timing = new TimingPublisher(published);
    try (FleetNode node =
        FleetNode.builder()
            .controlDataSource(control)
            .controlSchema(CONTROL_SCHEMA)
            .nodeId("iso")
            .leaseTtl(Duration.ofSeconds(5))
            .scanInterval(Duration.ofSeconds(1))
            .poolSize(2)
            .publishers((outbox, settings, client) -> timing)
            .relayConfig(
                RelayConfig.builder()
                    .minPollInterval(Duration.ofMillis(20))
                    .maxPollInterval(Duration.ofMillis(100))
                    .shutdownTimeout(Duration.ofSeconds(2))
                    .build())
            .build()) {
      node.start();
      await()
          .atMost(BOUND)
          .until(
              () ->
                  node.assignments().stream()
                          .filter(a -> a.state() == Assignment.State.RUNNING)
                          .count()
                      == 3);
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicLong refused = new AtomicLong();
      List<Thread> writers = new ArrayList<>();
      for (String s : STEADY) {
        writers.add(writer(s, FleetDatabases.dataSource(steadyUrl), s, writing, refused));
      }
      writers.add(writer(STOPPED, stoppedTenant(), STOPPED, writing, refused));
      writers.forEach(Thread::start);
      pause(PHASE); // warm-up: the relays' first cycles and the JIT are no phase's figures

      long t0 = System.nanoTime();
      pause(PHASE);
      long t1 = System.nanoTime();
      stoppedCluster.close(); // pg_ctl stop -m fast: the tenant's connections are cut
      stoppedCluster = null;
      pause(STOP);
      long t2 = System.nanoTime();
      // Served while the other tenant is down: everything they committed so far is published.
      List<UUID> steadySoFar = idsOf(STEADY);
      await().atMost(BOUND).until(() -> published.keySet().containsAll(steadySoFar));
      long steadyCaughtUp = System.nanoTime();
      stoppedCluster = startCluster();
      pause(PHASE);
      long t3 = System.nanoTime();
      writing.set(false);
      for (Thread w : writers) {
        w.join();
      }
      await().atMost(BOUND).until(() -> published.keySet().containsAll(committed.keySet()));

      assertThat(refused.get())
          .as("the stopped tenant's writes refused while it was down")
          .isPositive();
      assertThat(idsOf(List.of(STOPPED))).as("the stopped tenant's events").isNotEmpty();
      Map<String, long[]> phases = new LinkedHashMap<>();
      phases.put("before", new long[] {t0, t1});
      phases.put("stopped", new long[] {t1, t2});
      phases.put("after", new long[] {Math.max(t2, steadyCaughtUp), t3});
      StringBuilder report =
          new StringBuilder(
              "FleetTenantIsolationTest (stop "
                  + STOP.toSeconds()
                  + " s; "
                  + refused.get()
                  + " writes to the stopped tenant refused)\n"
                  + "tenant   phase    committed  published/s  latency p50 / p99 / max ms\n");
      for (String tenant : List.of("steady1", "steady2", STOPPED)) {
        phases.forEach(
            (phase, window) ->
                report.append(line(tenant, phase, window[0], window[1])).append('\n'));
      }
      System.out.print(report);
    }
  }

  /** One tenant's figures for the events it committed between {@code from} and {@code to}. */
  private String line(String tenant, String phase, long from, long to) {
    List<Long> latencies = new ArrayList<>();
    long publishedIn = 0;
    for (Map.Entry<UUID, String> e : tenantOf.entrySet()) {
      if (!e.getValue().equals(tenant)) {
        continue;
      }
      long commit = committed.getOrDefault(e.getKey(), -1L);
      Long at = published.get(e.getKey());
      if (at != null && at - from >= 0 && at - to < 0) {
        publishedIn++;
      }
      if (commit - from >= 0 && commit - to < 0 && at != null) {
        latencies.add(TimeUnit.NANOSECONDS.toMillis(at - commit));
      }
    }
    latencies.sort(null);
    double seconds = (to - from) / 1e9;
    return String.format(
        "%-8s %-8s %9d %12.0f  %s",
        tenant,
        phase,
        latencies.size(),
        publishedIn / seconds,
        latencies.isEmpty()
            ? "-"
            : latencies.get(latencies.size() / 2)
                + " / "
                + latencies.get((int) Math.min(latencies.size() - 1, latencies.size() * 0.99))
                + " / "
                + latencies.get(latencies.size() - 1));
  }

  private List<UUID> idsOf(List<String> tenants) {
    List<UUID> out = new ArrayList<>();
    tenantOf.forEach(
        (id, tenant) -> {
          if (tenants.contains(tenant) && committed.containsKey(id)) {
            out.add(id);
          }
        });
    return out;
  }

  private static DataSource stoppedTenant() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(stoppedUrl());
    ds.setUser("postgres");
    ds.setConnectTimeout(1);
    ds.setSocketTimeout(5);
    return ds;
  }

  /**
   * Commits five events to {@code schema} every 20 ms on one connection until told to stop; a
   * refusal is counted, and the connection opened again at the next turn.
   */
  private Thread writer(
      String tenant, DataSource ds, String schema, AtomicBoolean writing, AtomicLong refused) {
    String insert =
        "INSERT INTO "
            + schema
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload)"
            + " VALUES (?, 'order', '1', 'order.created', '{}')";
    return new Thread(
        () -> {
          long next = System.nanoTime();
          Connection c = null;
          while (writing.get()) {
            List<UUID> ids = new ArrayList<>();
            try {
              if (c == null) {
                c = ds.getConnection();
                c.setAutoCommit(false);
              }
              try (PreparedStatement ps = c.prepareStatement(insert)) {
                for (int i = 0; i < 5; i++) {
                  UUID id = UUID.randomUUID();
                  ids.add(id);
                  tenantOf.put(id, tenant);
                  ps.setObject(1, id);
                  ps.addBatch();
                }
                ps.executeBatch();
              }
              c.commit();
              long now = System.nanoTime();
              ids.forEach(id -> committed.put(id, now));
            } catch (Exception e) {
              ids.forEach(tenantOf::remove);
              refused.incrementAndGet();
              closeQuietly(c);
              c = null;
            }
            next += TimeUnit.MILLISECONDS.toNanos(20);
            long wait = next - System.nanoTime();
            if (wait > 0) {
              LockSupport.parkNanos(wait);
            } else {
              next = System.nanoTime();
            }
          }
          closeQuietly(c);
        },
        "writer-" + tenant);
  }

  private static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception e) {
        // a connection cut by the stopped cluster: nothing to close
      }
    }
  }

  /** The test's own phases are measured time, not a wait for a condition. */
  private static void pause(Duration d) {
    long end = System.nanoTime() + d.toNanos();
    while (end - System.nanoTime() > 0) {
      LockSupport.parkNanos(end - System.nanoTime());
    }
  }

  /** Acknowledges every message and notes when it first saw each. */
  private static final class TimingPublisher implements Publisher {
    private final Map<UUID, Long> seen;

    TimingPublisher(Map<UUID, Long> seen) {
      this.seen = seen;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) {
      long now = System.nanoTime();
      List<PublishResult> out = new ArrayList<>(messages.size());
      for (OutboxMessage m : messages) {
        seen.putIfAbsent(m.id(), now);
        out.add(PublishResult.published());
      }
      return out;
    }

    @Override
    public void close() {
      // shared by the node's relays; nothing to release
    }
  }
}
