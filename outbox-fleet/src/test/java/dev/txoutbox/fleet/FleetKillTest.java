package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two fleet nodes in child processes share four outboxes while a writer inserts events into all of
 * them; one node is killed with SIGKILL, the other takes its outboxes over, then stops on SIGTERM
 * and frees its leases. Every committed event reaches the "broker" (a table), counted by event id.
 */
class FleetKillTest {

  static final Duration TTL = Duration.ofSeconds(2);
  static final Duration SCAN = Duration.ofMillis(300);
  static final int BATCH = 20;
  private static final List<String> OUTBOXES = List.of("k1", "k2", "k3", "k4");
  private static final String SCHEMA = "fleet_kill";

  private static FleetDatabases databases;
  private static String controlUrl;
  private static String tenantUrl;

  @TempDir Path dir;

  @BeforeAll
  static void createDatabases() throws Exception {
    databases = new FleetDatabases();
    controlUrl = databases.create("killcontrol");
    tenantUrl = databases.create("killtenant");
    for (String s : OUTBOXES) {
      FleetDatabases.migrateOutbox(tenantUrl, s);
    }
    DataSource control = FleetDatabases.dataSource(controlUrl);
    FleetSchema.migrate(control, SCHEMA);
    try (Connection c = control.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE published (event_id uuid NOT NULL, outbox text NOT NULL, node text NOT"
              + " NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())");
    }
    FleetRegistry registry = FleetRegistry.create(control, SCHEMA);
    for (String s : OUTBOXES) {
      registry.add(
          FleetOutbox.builder(s)
              .jdbcUrl(tenantUrl)
              .user("postgres")
              .schema(s)
              .publisher("table")
              .build());
    }
  }

  @AfterAll
  static void dropDatabases() throws Exception {
    databases.close();
  }

  private Process node(String id) throws Exception {
    return new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            FleetNodeMain.class.getName(),
            controlUrl,
            SCHEMA,
            id)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve(id + ".log").toFile())
        .start();
  }

  @Test
  void aKilledNodesOutboxesAreServedAgainAndNoEventIsLost() throws Exception {
    List<UUID> written = new CopyOnWriteArrayList<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread writer =
        new Thread(
            () -> {
              while (writing.get()) {
                for (String s : OUTBOXES) {
                  try {
                    written.addAll(FleetDatabases.insertEvents(tenantUrl, s, 5));
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                }
              }
            },
            "writer");
    Process a = node("a");
    Process b = node("b");
    try {
      writer.start();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> count(Set.of("a"), 2) && count(Set.of("b"), 2));
      List<String> ofB = outboxesOf("b");
      String killedAt = dbNow(); // just before the kill, so the gaps measured are upper bounds
      b.destroyForcibly(); // SIGKILL: no release, no close
      assertThat(b.waitFor(30, TimeUnit.SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(60)).until(() -> count(Set.of("a"), 4));
      // the first event a published for each of b's outboxes after the kill
      Map<String, Double> gaps = new HashMap<>();
      for (String o : ofB) {
        await().atMost(Duration.ofSeconds(60)).until(() -> gapSeconds(o, killedAt) != null);
        gaps.put(o, gapSeconds(o, killedAt));
      }
      writing.set(false);
      writer.join();
      await().atMost(Duration.ofSeconds(60)).until(() -> pending() == 0);

      Map<UUID, Integer> counts = deliveries();
      assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(written);
      long duplicates = counts.values().stream().filter(n -> n > 1).count();
      // at most the batch in flight of each of b's relays when it died
      assertThat(duplicates).as("duplicates").isLessThanOrEqualTo((long) BATCH * ofB.size());
      // The bound is lease TTL + scan interval (2.3 s here) plus the relay's start; 30 s is only a
      // timeout, wide enough for a loaded machine. The figures measured are printed below.
      assertThat(gaps.values()).allMatch(g -> g < 30.0);
      System.out.println(
          "FleetKillTest: "
              + written.size()
              + " events, "
              + duplicates
              + " duplicates; first publication after SIGKILL of b per outbox (s): "
              + gaps
              + " (TTL "
              + TTL
              + ", scan "
              + SCAN
              + ")");

      a.destroy(); // SIGTERM: a closes, frees its leases and leaves
      assertThat(a.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(ownersOfAll()).containsOnlyNulls();
    } finally {
      writing.set(false);
      a.destroyForcibly();
      b.destroyForcibly();
    }
  }

  private static DataSource control() {
    return FleetDatabases.dataSource(controlUrl);
  }

  private static String dbNow() throws Exception {
    try (Connection c = control().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT clock_timestamp()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** Whether the nodes in {@code owners} hold exactly {@code n} live leases. */
  private static boolean count(Set<String> owners, int n) throws Exception {
    int held = 0;
    for (String owner : owners) {
      held += outboxesOf(owner).size();
    }
    return held == n;
  }

  private static List<String> outboxesOf(String node) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = control().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT outbox FROM "
                    + SCHEMA
                    + ".fleet_leases WHERE owner = ? AND expires_at >= now() ORDER BY outbox")) {
      ps.setString(1, node);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static List<String> ownersOfAll() throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = control().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT owner FROM " + SCHEMA + ".fleet_leases")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static Double gapSeconds(String outbox, String after) throws Exception {
    try (Connection c = control().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT extract(epoch FROM min(at) - ?::timestamptz)::float8 FROM published"
                    + " WHERE outbox = ? AND node = 'a' AND at > ?::timestamptz")) {
      ps.setString(1, after);
      ps.setString(2, outbox);
      ps.setString(3, after);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        double v = rs.getDouble(1);
        return rs.wasNull() ? null : v;
      }
    }
  }

  private static int pending() throws Exception {
    int n = 0;
    try (Connection c = FleetDatabases.dataSource(tenantUrl).getConnection();
        Statement s = c.createStatement()) {
      for (String o : OUTBOXES) {
        try (ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM " + o + ".outbox_events WHERE processed_at IS NULL")) {
          rs.next();
          n += rs.getInt(1);
        }
      }
    }
    return n;
  }

  private static Map<UUID, Integer> deliveries() throws Exception {
    Map<UUID, Integer> counts = new HashMap<>();
    try (Connection c = control().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT event_id, count(*) FROM published GROUP BY event_id")) {
      while (rs.next()) {
        counts.put(rs.getObject(1, UUID.class), rs.getInt(2));
      }
    }
    return counts;
  }
}
