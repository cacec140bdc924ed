package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.testing.RecordingPublisher;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Nodes, leases and relays against the local PostgreSQL: a control database and two tenant
 * databases of the test's own. Leases use the database's clock, so the TTL is small (2 s) and every
 * wait is an Awaitility bound, never a sleep.
 */
class FleetNodeTest {

  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Duration SCAN = Duration.ofMillis(300);
  private static final Duration BOUND = Duration.ofSeconds(30);

  private static FleetDatabases databases;
  private static String controlUrl;
  private static String tenantUrl;
  private static String otherTenantUrl;

  private final Map<String, RecordingPublisher> publishers = new ConcurrentHashMap<>();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final List<FleetNode> nodes = new ArrayList<>();
  private final List<String> overlaps = new CopyOnWriteArrayList<>();
  private final AtomicBoolean sampling = new AtomicBoolean();
  private Thread sampler;
  private String controlSchema;
  private FleetRegistry registry;

  @BeforeAll
  static void createDatabases() throws Exception {
    databases = new FleetDatabases();
    controlUrl = databases.create("control");
    tenantUrl = databases.create("tenant1");
    otherTenantUrl = databases.create("tenant2");
    for (String schema : List.of("a", "b", "c", "d", "e")) {
      FleetDatabases.migrateOutbox(tenantUrl, schema);
    }
    FleetDatabases.migrateOutbox(otherTenantUrl, "a");
  }

  @AfterAll
  static void dropDatabases() throws Exception {
    databases.close();
  }

  @BeforeEach
  void freshControlSchema() {
    controlSchema = "fleet_" + UUID.randomUUID().toString().substring(0, 8);
    FleetSchema.migrate(control(), controlSchema);
    registry = FleetRegistry.create(control(), controlSchema);
  }

  @AfterEach
  void closeNodes() throws Exception {
    stopSampling();
    for (FleetNode n : nodes) {
      n.close();
    }
  }

  private static DataSource control() {
    return FleetDatabases.dataSource(controlUrl);
  }

  private FleetNode node(String id, DataSource controlDataSource, ControlLossPolicy policy) {
    return node(id, controlDataSource, policy, SCAN);
  }

  private FleetNode node(
      String id, DataSource controlDataSource, ControlLossPolicy policy, Duration scan) {
    FleetNode node =
        FleetNode.builder()
            .controlDataSource(controlDataSource)
            .controlSchema(controlSchema)
            .nodeId(id)
            .leaseTtl(TTL)
            .scanInterval(scan)
            .controlLossPolicy(policy)
            .poolSize(2)
            .metrics(meters)
            .startBackoff(Duration.ofMillis(200), Duration.ofSeconds(1))
            .publishers(
                (outbox, settings, client) ->
                    publishers.computeIfAbsent(outbox.name(), k -> new RecordingPublisher()))
            .relayConfig(
                RelayConfig.builder()
                    .minPollInterval(Duration.ofMillis(20))
                    .maxPollInterval(Duration.ofMillis(100))
                    .shutdownTimeout(Duration.ofSeconds(2))
                    .build())
            .build();
    nodes.add(node);
    node.start();
    return node;
  }

  private FleetNode node(String id) {
    return node(id, control(), ControlLossPolicy.KEEP_POLLING);
  }

  private FleetOutbox add(String name, String url, String schema) {
    return registry.add(
        FleetOutbox.builder(name)
            .jdbcUrl(url)
            .user("postgres")
            .schema(schema)
            .publisher("recording")
            .build());
  }

  /** Every lease's owner, live or expired: outbox to owner (null when released). */
  private Map<String, String> owners() throws Exception {
    Map<String, String> owners = new HashMap<>();
    try (Connection c = control().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT outbox, owner FROM \"" + controlSchema + "\".fleet_leases");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        owners.put(rs.getString(1), rs.getString(2));
      }
    }
    return owners;
  }

  /** Lease owners as the database sees them now: outbox to live owner. */
  private Map<String, String> liveOwners() throws Exception {
    Map<String, String> owners = new HashMap<>();
    try (Connection c = control().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT outbox, owner FROM \""
                    + controlSchema
                    + "\".fleet_leases WHERE owner IS NOT NULL AND expires_at >= now()");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        owners.put(rs.getString(1), rs.getString(2));
      }
    }
    return owners;
  }

  private Map<String, Long> heldBy(FleetNode node) {
    return node.assignments().stream()
        .collect(Collectors.toMap(Assignment::outbox, Assignment::term));
  }

  /** Checks, until stopped, that no outbox runs a relay on two nodes at once. */
  private void startSampling() {
    sampling.set(true);
    sampler =
        new Thread(
            () -> {
              while (sampling.get()) {
                Map<String, String> running = new HashMap<>();
                for (FleetNode n : List.copyOf(nodes)) {
                  for (Assignment a : n.assignments()) {
                    if (a.state() == Assignment.State.RUNNING) {
                      String other = running.put(a.outbox(), n.nodeId());
                      if (other != null) {
                        overlaps.add(a.outbox() + " on " + other + " and " + n.nodeId());
                      }
                    }
                  }
                }
                Thread.onSpinWait();
              }
            },
            "overlap-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void stopSampling() throws InterruptedException {
    sampling.set(false);
    if (sampler != null) {
      sampler.join();
    }
  }

  @Test
  void aNodeTakesEveryOutboxAndPublishesEach() throws Exception {
    add("a", tenantUrl, "a");
    add("b", tenantUrl, "b");
    FleetNode one = node("one");
    await().atMost(BOUND).until(() -> heldBy(one).keySet().equals(Set.of("a", "b")));
    List<UUID> inA = FleetDatabases.insertEvents(tenantUrl, "a", 5);
    List<UUID> inB = FleetDatabases.insertEvents(tenantUrl, "b", 3);
    await()
        .atMost(BOUND)
        .untilAsserted(
            () -> {
              assertThat(publishers.get("a").publishedIds())
                  .containsExactlyInAnyOrderElementsOf(inA);
              assertThat(publishers.get("b").publishedIds())
                  .containsExactlyInAnyOrderElementsOf(inB);
            });
    assertThat(liveOwners()).containsExactlyInAnyOrderEntriesOf(Map.of("a", "one", "b", "one"));
    assertThat(heldBy(one).values()).containsOnly(1L);
    // each relay's meters carry the outbox and the node
    assertThat(meters.getMeters())
        .extracting(Meter::getId)
        .filteredOn(id -> "b".equals(id.getTag("outbox")))
        .isNotEmpty()
        .allMatch(
            id -> "one".equals(id.getTag("fleet_node")) && "one.b".equals(id.getTag("relay")));
  }

  @Test
  void aJoiningNodeGetsItsShareWithoutOverlap() throws Exception {
    for (String s : List.of("a", "b", "c", "d")) {
      add(s, tenantUrl, s);
    }
    FleetNode one = node("one");
    await().atMost(BOUND).until(() -> heldBy(one).size() == 4);
    startSampling();
    FleetNode two = node("two");
    await()
        .atMost(BOUND)
        .until(
            () -> heldBy(one).size() == 2 && heldBy(two).size() == 2 && liveOwners().size() == 4);
    stopSampling();
    assertThat(overlaps).isEmpty();
    // a handed-over outbox got a new term; every outbox still publishes
    assertThat(heldBy(two).values()).allMatch(term -> term == 2L);
    for (String s : List.of("a", "b", "c", "d")) {
      List<UUID> ids = FleetDatabases.insertEvents(tenantUrl, s, 2);
      await().atMost(BOUND).until(() -> publishers.get(s).publishedIds().containsAll(ids));
    }
  }

  @Test
  void anotherNodeTakesOverWhenANodeStopsRenewing() throws Exception {
    for (String s : List.of("a", "b", "c")) {
      add(s, tenantUrl, s);
    }
    CuttableDataSource partitioned = new CuttableDataSource(control());
    FleetNode one = node("one", partitioned, ControlLossPolicy.STOP_ALL);
    await().atMost(BOUND).until(() -> heldBy(one).size() == 3);
    assertThat(one.renewing()).isTrue();
    FleetNode two = node("two");
    await()
        .atMost(BOUND)
        .until(() -> heldBy(one).size() + heldBy(two).size() == 3 && heldBy(two).size() >= 1);
    startSampling();
    partitioned.cut(); // node one can no longer renew: it stops its relays, two takes over
    long cutAt = System.nanoTime();
    await().atMost(BOUND).until(() -> heldBy(two).size() == 3 && heldBy(one).isEmpty());
    Duration takeover = Duration.ofNanos(System.nanoTime() - cutAt);
    stopSampling();
    // past its TTL without a renewal, one says so to its health probe; two still renews
    await().atMost(BOUND).until(() -> !one.renewing());
    assertThat(two.renewing()).isTrue();
    assertThat(overlaps).isEmpty();
    assertThat(liveOwners()).containsOnlyKeys("a", "b", "c").containsValues("two");
    assertThat(liveOwners().values()).containsOnly("two");
    // every takeover is a new term: the outboxes one held are at term 2 at least
    assertThat(heldBy(two).values()).allMatch(term -> term >= 2L);
    List<UUID> ids = FleetDatabases.insertEvents(tenantUrl, "a", 3);
    await().atMost(BOUND).until(() -> publishers.get("a").publishedIds().containsAll(ids));
    System.out.println(
        "takeover after cut: " + takeover.toMillis() + " ms (TTL " + TTL + ", scan " + SCAN + ")");
  }

  @Test
  void outboxesAddedAndRemovedWhileRunningAreServedAndDropped() throws Exception {
    add("a", tenantUrl, "a");
    FleetNode one = node("one");
    await().atMost(BOUND).until(() -> heldBy(one).keySet().equals(Set.of("a")));
    add("e", tenantUrl, "e");
    await().atMost(BOUND).until(() -> heldBy(one).keySet().equals(Set.of("a", "e")));
    List<UUID> ids = FleetDatabases.insertEvents(tenantUrl, "e", 2);
    await().atMost(BOUND).until(() -> publishers.get("e").publishedIds().containsAll(ids));
    assertThat(registry.remove("a")).isTrue();
    await().atMost(BOUND).until(() -> heldBy(one).keySet().equals(Set.of("e")));
    int before = publishers.get("a").publishedIds().size();
    FleetDatabases.insertEvents(tenantUrl, "a", 2);
    assertThat(registry.setEnabled("e", false)).isTrue();
    await().atMost(BOUND).until(() -> heldBy(one).isEmpty() && liveOwners().isEmpty());
    // nothing serves a removed outbox: its new events stay pending
    assertThat(publishers.get("a").publishedIds()).hasSize(before);
    assertThat(pending(tenantUrl, "a")).isEqualTo(2);
  }

  /** The outboxes whose relay runs on {@code node}. */
  private static Set<String> running(FleetNode node) {
    return node.assignments().stream()
        .filter(a -> a.state() == Assignment.State.RUNNING)
        .map(Assignment::outbox)
        .collect(Collectors.toSet());
  }

  @Test
  void registryChangesAreActedOnAtTheirNotificationNotAtTheNextScan() throws Exception {
    // A scan every ten minutes: within the test's bounds only the change notification can make
    // the node act. The first scan runs at start, so "a" is served at once.
    Duration tenMinutes = Duration.ofMinutes(10);
    add("a", tenantUrl, "a");
    FleetNode one = node("one", control(), ControlLossPolicy.KEEP_POLLING, tenMinutes);
    await().atMost(BOUND).until(() -> running(one).contains("a"));
    List<Long> millis = new ArrayList<>();
    for (String s : List.of("d", "e")) {
      long before = System.nanoTime();
      add(s, tenantUrl, s);
      await().atMost(BOUND).until(() -> running(one).contains(s));
      millis.add(Duration.ofNanos(System.nanoTime() - before).toMillis());
      List<UUID> ids = FleetDatabases.insertEvents(tenantUrl, s, 2);
      await().atMost(BOUND).until(() -> publishers.get(s).publishedIds().containsAll(ids));
    }
    long before = System.nanoTime();
    assertThat(registry.setEnabled("d", false)).isTrue();
    assertThat(registry.remove("e")).isTrue();
    await().atMost(BOUND).until(() -> heldBy(one).keySet().equals(Set.of("a")));
    long dropped = Duration.ofNanos(System.nanoTime() - before).toMillis();
    // A dropped outbox leaves the assignments when its relay is told to stop; its lease is freed
    // once the relay has stopped, just after.
    await().atMost(BOUND).until(() -> liveOwners().keySet().equals(Set.of("a")));
    System.out.println(
        "registry change to relay running, through LISTEN (scan interval "
            + tenMinutes
            + "): "
            + millis
            + " ms; disable + remove to both relays stopped: "
            + dropped
            + " ms");
  }

  @Test
  void anUnreachableTenantDatabaseDoesNotStopAnother() throws Exception {
    add("down", "jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=1", "a");
    add("up", otherTenantUrl, "a");
    FleetNode one = node("one");
    await().atMost(BOUND).until(() -> heldBy(one).keySet().equals(Set.of("down", "up")));
    List<UUID> ids = FleetDatabases.insertEvents(otherTenantUrl, "a", 20);
    await().atMost(BOUND).until(() -> publishers.get("up").publishedIds().containsAll(ids));
    assertThat(publishers.getOrDefault("down", new RecordingPublisher()).publishedIds()).isEmpty();
  }

  @Test
  void aClosedNodeHandsItsOutboxesOverAtOnce() throws Exception {
    add("a", tenantUrl, "a");
    add("b", tenantUrl, "b");
    FleetNode one = node("one");
    await().atMost(BOUND).until(() -> heldBy(one).size() == 2);
    FleetNode two = node("two");
    await().atMost(BOUND).until(() -> heldBy(one).size() == 1 && heldBy(two).size() == 1);
    assertThat(one.renewing()).isTrue();
    one.close();
    assertThat(one.renewing()).isFalse();
    // close() released the leases it held: none is still one's, expired or not, so two takes them
    // at its next scan instead of waiting for the TTL
    assertThat(owners()).doesNotContainValue("one");
    await().atMost(BOUND).until(() -> heldBy(two).size() == 2);
    assertThat(liveOwners()).containsOnlyKeys("a", "b");
    assertThat(liveOwners().values()).containsOnly("two");
  }

  @Test
  void aChangedEntryRestartsItsRelay() throws Exception {
    FleetOutbox a = add("a", tenantUrl, "a");
    FleetNode one = node("one");
    await().atMost(BOUND).until(() -> heldBy(one).containsKey("a"));
    registry.update(a.toBuilder().schema("c").build());
    List<UUID> ids = FleetDatabases.insertEvents(tenantUrl, "c", 2);
    await().atMost(BOUND).until(() -> publishers.get("a").publishedIds().containsAll(ids));
    assertThat(registry.get("a").orElseThrow().version()).isEqualTo(2);
  }

  private static int pending(String url, String schema) throws Exception {
    try (Connection c = FleetDatabases.dataSource(url).getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM " + schema + ".outbox_events WHERE processed_at IS NULL");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
