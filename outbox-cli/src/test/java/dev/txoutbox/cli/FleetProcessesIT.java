package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.txoutbox.schema.OutboxSchema;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A relay fleet of real processes: nodes are {@code java -jar txoutbox.jar fleet run}, the registry
 * is changed with {@code fleet add} and {@code fleet remove} of the same jar, and the broker is the
 * local RabbitMQ, where every delivery is counted by event id. The outboxes are spread over schemas
 * of three databases: two on the local PostgreSQL and one on a logical-replication server the test
 * starts ({@link LogicalDatabase}), which also holds one WAL outbox. A writer commits events into
 * every outbox all along while the test kills a node with SIGKILL, stops one with SIGTERM, starts a
 * new one, adds two outboxes and removes one.
 *
 * <p>Checked: every committed event reaches the broker; duplicates stay within one batch per relay
 * the killed node held; no outbox goes without a publication for longer than the bound (lease TTL +
 * scan interval) plus {@link #START_ALLOWANCE} for a relay's start on a loaded machine. The gaps
 * measured are printed. By default 9 outboxes (what {@code mvn verify} runs); {@code
 * -Dfleet.outboxes=30} runs the full fleet of issue 38 (see outbox-cli's README).
 */
class FleetProcessesIT {

  static final Duration TTL = Duration.ofSeconds(3);
  static final Duration SCAN = Duration.ofMillis(500);
  static final int BATCH = 20;

  /** Beyond TTL + scan: a relay's start (pool, publisher, first claim) on a loaded 2-core host. */
  static final Duration START_ALLOWANCE = Duration.ofSeconds(20);

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String HOST_URL = "jdbc:postgresql://127.0.0.1:5432/";
  private static final String CONTROL = "fleet_it_control";
  private static final String AMQP_ENV = "FLEET_IT_AMQP_URI";

  private static final String PREFIX =
      "fleetit_" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
  private static final List<String> DATABASES = List.of(PREFIX + "_a", PREFIX + "_b");

  /** Outbox name to where it is: JDBC URL and schema. */
  private static final Map<String, Place> OUTBOXES = new LinkedHashMap<>();

  private static String walOutbox;
  private static Broker broker;

  record Place(String url, String schema, boolean wal) {}

  @BeforeAll
  static void setUp() throws Exception {
    int total = Integer.getInteger("fleet.outboxes", 9);
    assertThat(total).as("fleet.outboxes").isBetween(4, 60);
    for (String db : DATABASES) {
      execute(HOST_URL + "postgres", "CREATE DATABASE " + db);
    }
    // the WAL outbox, then polling outboxes spread over the three databases
    LogicalDatabase wal = LogicalDatabase.freshOutbox();
    walOutbox = "wal-" + wal.schema.replace('_', '-');
    OUTBOXES.put(walOutbox, new Place(LogicalDatabase.jdbcUrl(), wal.schema, true));
    for (int i = 1; i < total; i++) {
      String url =
          switch (i % 3) {
            case 0 -> LogicalDatabase.jdbcUrl();
            case 1 -> HOST_URL + DATABASES.get(0);
            default -> HOST_URL + DATABASES.get(1);
          };
      OUTBOXES.put("ob" + i, new Place(url, "ob" + i + "_" + PREFIX.substring(8), false));
    }
    // the two added while the fleet runs
    OUTBOXES.put("late1", new Place(HOST_URL + DATABASES.get(0), "late1", false));
    OUTBOXES.put("late2", new Place(HOST_URL + DATABASES.get(1), "late2", false));
    for (Place p : OUTBOXES.values()) {
      if (!p.wal()) {
        OutboxSchema.migrate(dataSource(p.url()), p.schema());
      }
    }
    broker = new Broker();
  }

  @AfterAll
  static void tearDown() throws Exception {
    if (broker != null) {
      broker.close();
    }
    for (String db : DATABASES) {
      execute(HOST_URL + "postgres", "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    }
  }

  @Test
  void killedStoppedAndAddedNodesAndChangedOutboxesLoseNothingAndLeaveNoOutboxUnserved()
      throws Exception {
    String controlUrl = HOST_URL + DATABASES.get(0);
    List<String> initial = OUTBOXES.keySet().stream().filter(n -> !n.startsWith("late")).toList();
    for (String name : initial) {
      add(controlUrl, name);
    }
    Writer writer = new Writer();
    Map<String, JarProcess> nodes = new LinkedHashMap<>();
    try {
      for (String id : List.of("n1", "n2", "n3")) {
        nodes.put(id, node(controlUrl, id));
      }
      await()
          .atMost(WAIT)
          .until(
              () -> {
                Map<String, String> owners = liveOwners(controlUrl);
                return owners.keySet().containsAll(initial)
                    && Set.copyOf(owners.values()).size() == 3;
              });
      initial.forEach(writer::write);
      writer.start();
      await().atMost(WAIT).until(() -> broker.arrivals.keySet().containsAll(initial));
      long measuredFrom = System.nanoTime();

      // SIGKILL: no release, no close; its outboxes wait for their leases to expire
      List<String> ofKilled = held(controlUrl, "n1");
      long killedAt = System.nanoTime();
      nodes.get("n1").kill();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                Map<String, String> owners = liveOwners(controlUrl);
                return owners.keySet().containsAll(initial) && !owners.containsValue("n1");
              });
      await().atMost(WAIT).until(() -> publishedSince(ofKilled, killedAt));
      double killGap = maxGap(ofKilled, killedAt, System.nanoTime());

      // outboxes added and removed while the fleet runs
      long addedAt = System.nanoTime();
      Map<String, Long> added = new LinkedHashMap<>();
      for (String late : List.of("late1", "late2")) {
        writer.write(late); // committed before the entry exists: waiting for a node
        added.put(late, add(controlUrl, late));
      }
      await().atMost(WAIT).until(() -> publishedSince(List.of("late1", "late2"), addedAt));
      // from the end of each `fleet add` to the outbox's first publication
      double addedToFirst = 0;
      for (Map.Entry<String, Long> a : added.entrySet()) {
        addedToFirst =
            Math.max(addedToFirst, (firstSince(List.of(a.getKey()), addedAt) - a.getValue()) / 1e9);
      }
      String removed = initial.get(initial.size() - 1);
      long removedWritesStopped = writer.stop(removed);
      await().atMost(WAIT).until(() -> pending(removed) == 0);
      JarProcess remove = jar(controlUrl, "fleet", "remove", removed);
      assertThat(remove.waitFor()).as(remove.err()).isZero();
      await().atMost(WAIT).until(() -> !liveOwners(controlUrl).containsKey(removed));

      // SIGTERM: the node stops its relays and frees their leases at once
      List<String> ofStopped = held(controlUrl, "n2");
      ofStopped.remove(removed);
      long stoppedAt = System.nanoTime();
      nodes.get("n2").terminate();
      assertThat(nodes.get("n2").waitFor()).as(nodes.get("n2").err()).isZero();
      await().atMost(WAIT).until(() -> publishedSince(ofStopped, stoppedAt));
      double stopGap = maxGap(ofStopped, stoppedAt, System.nanoTime());

      // a node joins and takes its share
      nodes.put("n4", node(controlUrl, "n4"));
      await().atMost(WAIT).until(() -> !held(controlUrl, "n4").isEmpty());
      List<String> ofJoined = held(controlUrl, "n4");
      long joinedAt = System.nanoTime();
      await().atMost(WAIT).until(() -> publishedSince(ofJoined, joinedAt));

      writer.close();
      long writesStopped = System.nanoTime();
      List<String> served = new ArrayList<>(OUTBOXES.keySet());
      served.remove(removed);
      await().atMost(WAIT).until(() -> drained(served));
      await().atMost(WAIT).until(() -> broker.counts.keySet().containsAll(writer.written.keySet()));

      Map<String, Integer> counts = Map.copyOf(broker.counts);
      assertThat(counts.keySet()).containsAll(writer.written.keySet());
      long duplicates = counts.values().stream().mapToLong(n -> n - 1).sum();
      // the batch in flight of each relay the killed node ran, at most: one per polling outbox,
      // two for a WAL outbox (the WAL relay and its polling sweeper)
      long killedRelays = ofKilled.size() + (ofKilled.contains(walOutbox) ? 1 : 0);
      assertThat(duplicates).as("duplicate deliveries").isLessThanOrEqualTo(BATCH * killedRelays);

      Map<String, Double> gaps = new TreeMap<>();
      for (String o : served) {
        long from = added.containsKey(o) ? firstSince(List.of(o), addedAt) : measuredFrom;
        gaps.put(o, maxGap(List.of(o), from, writesStopped));
      }
      gaps.put(removed, maxGap(List.of(removed), measuredFrom, removedWritesStopped));
      double bound = (TTL.plus(SCAN).plus(START_ALLOWANCE)).toMillis() / 1000.0;
      double worst = gaps.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
      System.out.printf(
          Locale.ROOT,
          "FleetProcessesIT: %d outboxes over 3 databases (1 WAL), 3 nodes + 1 joined; %d events"
              + " written, %d delivered, %d duplicate deliveries (bound %d); longest gap between"
              + " two publications of one outbox: %.2f s overall, %.2f s for the SIGKILLed node's"
              + " %d outboxes, %.2f s for the SIGTERMed node's %d; added outbox to first"
              + " publication %.2f s; TTL %s, scan %s; per outbox (s): %s%n",
          OUTBOXES.size(),
          writer.written.size(),
          counts.values().stream().mapToLong(Integer::longValue).sum(),
          duplicates,
          BATCH * killedRelays,
          worst,
          killGap,
          ofKilled.size(),
          stopGap,
          ofStopped.size(),
          addedToFirst,
          Durations.format(TTL),
          Durations.format(SCAN),
          gaps);
      assertThat(worst).as("longest unserved time (s), bound %s", bound).isLessThan(bound);

      for (String id : List.of("n3", "n4")) {
        nodes.get(id).terminate();
        assertThat(nodes.get(id).waitFor()).as(nodes.get(id).err()).isZero();
      }
      assertThat(liveOwners(controlUrl)).isEmpty();
    } finally {
      writer.close();
      for (Map.Entry<String, JarProcess> n : nodes.entrySet()) {
        // each node's log beside the test reports, for a failure's post-mortem
        java.nio.file.Files.writeString(
            java.nio.file.Path.of("target", "fleet-it-" + n.getKey() + ".log"), n.getValue().err());
        n.getValue().close();
      }
    }
  }

  // ---- the fleet's processes

  private static JarProcess node(String controlUrl, String id) throws Exception {
    return JarProcess.start(
        Map.of(
            AMQP_ENV,
            RabbitQueue.URI,
            // two cores for everything: a lighter JIT, a bounded heap
            "JAVA_TOOL_OPTIONS",
            "-XX:TieredStopAtLevel=1 -Xmx256m -XX:+UseSerialGC"),
        "--jdbc-url",
        controlUrl,
        "--user",
        "postgres",
        "fleet",
        "run",
        "--control-schema",
        CONTROL,
        "--node-id",
        id,
        "--lease-ttl",
        Durations.format(TTL),
        "--scan-interval",
        Durations.format(SCAN),
        "--batch-size",
        String.valueOf(BATCH),
        "--max-poll-interval",
        "200ms",
        "--shutdown-timeout",
        "5s",
        "--pool-size",
        "2",
        "--wal-sweep-interval",
        "5s");
  }

  private static JarProcess jar(String controlUrl, String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("--jdbc-url", controlUrl, "--user", "postgres"));
    all.addAll(List.of(args));
    all.addAll(List.of("--control-schema", CONTROL));
    return JarProcess.start(Map.of(), all.toArray(String[]::new));
  }

  /** Runs {@code fleet add} for {@code name}; returns when it ended (nanoTime). */
  private static long add(String controlUrl, String name) throws Exception {
    Place p = OUTBOXES.get(name);
    List<String> args =
        new ArrayList<>(
            List.of(
                "fleet",
                "add",
                name,
                "--outbox-url",
                p.url(),
                "--outbox-user",
                "postgres",
                "--outbox-schema",
                p.schema(),
                "--kind",
                p.wal() ? "wal" : "polling",
                "--publisher",
                "rabbit",
                "--amqp-uri",
                "env:" + AMQP_ENV,
                "--exchange",
                broker.exchange));
    try (JarProcess add = jar(controlUrl, args.toArray(String[]::new))) {
      assertThat(add.waitFor()).as(add.err()).isZero();
      return System.nanoTime();
    }
  }

  // ---- the control database

  private static Map<String, String> liveOwners(String controlUrl) throws SQLException {
    Map<String, String> owners = new HashMap<>();
    try (java.sql.Connection c = DriverManager.getConnection(controlUrl, "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT outbox, owner FROM "
                    + CONTROL
                    + ".fleet_leases WHERE owner IS NOT NULL AND expires_at >= now()")) {
      while (rs.next()) {
        owners.put(rs.getString(1), rs.getString(2));
      }
    }
    return owners;
  }

  private static List<String> held(String controlUrl, String node) throws SQLException {
    List<String> out = new ArrayList<>();
    liveOwners(controlUrl)
        .forEach(
            (o, n) -> {
              if (n.equals(node)) {
                out.add(o);
              }
            });
    return out;
  }

  // ---- the outboxes

  private static javax.sql.DataSource dataSource(String url) {
    org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
    ds.setUrl(url);
    ds.setUser("postgres");
    return ds;
  }

  private static void execute(String url, String sql) throws SQLException {
    try (java.sql.Connection c = DriverManager.getConnection(url, "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static boolean drained(List<String> outboxes) throws SQLException {
    for (String o : outboxes) {
      if (pending(o) > 0) {
        return false;
      }
    }
    return true;
  }

  private static long pending(String outbox) throws SQLException {
    Place p = OUTBOXES.get(outbox);
    try (java.sql.Connection c = DriverManager.getConnection(p.url(), "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM "
                    + p.schema()
                    + ".outbox_events WHERE processed_at IS NULL")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Commits one event into each outbox it writes to, round after round, on a thread of its own,
   * keeping the id of every committed event.
   */
  static final class Writer implements AutoCloseable {
    final Map<String, String> written = new ConcurrentHashMap<>();
    private final Set<String> targets = ConcurrentHashMap.newKeySet();
    private final Map<String, java.sql.Connection> connections = new HashMap<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread = new Thread(this::loop, "fleet-it-writer");

    void write(String outbox) {
      targets.add(outbox);
    }

    /** Stops writing to {@code outbox} once the current round is done; returns when. */
    long stop(String outbox) throws InterruptedException {
      targets.remove(outbox);
      long round = rounds.get();
      await().atMost(WAIT).until(() -> rounds.get() > round + 1 || !running.get());
      return System.nanoTime();
    }

    private final java.util.concurrent.atomic.AtomicLong rounds =
        new java.util.concurrent.atomic.AtomicLong();

    void start() {
      thread.start();
    }

    private void loop() {
      try {
        while (running.get()) {
          for (String o : List.copyOf(targets)) {
            Place p = OUTBOXES.get(o);
            java.sql.Connection c = connections.get(p.url());
            if (c == null) {
              c = DriverManager.getConnection(p.url(), "postgres", "");
              connections.put(p.url(), c);
            }
            String id = UUID.randomUUID().toString();
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO "
                        + p.schema()
                        + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload)"
                        // the event type is the routing key: the broker's arrivals by outbox
                        + " VALUES (?::uuid, 'fleet', ?, ?, '{}')")) {
              ps.setString(1, id);
              ps.setString(2, id);
              ps.setString(3, o);
              ps.executeUpdate(); // auto-commit: committed once it returns
            }
            written.put(id, o);
          }
          rounds.incrementAndGet();
          // pacing, not waiting for a condition: about 20 rounds a second at most
          Thread.sleep(50);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Throwable t) {
        failure.set(t);
        running.set(false);
      }
    }

    @Override
    public void close() throws Exception {
      running.set(false);
      thread.join(WAIT.toMillis());
      for (java.sql.Connection c : connections.values()) {
        c.close();
      }
      connections.clear();
      assertThat(failure.get()).as("the writer's failure").isNull();
    }
  }

  // ---- the broker

  /**
   * A topic exchange with one queue bound to all of it: deliveries by event id, arrivals by outbox.
   */
  static final class Broker implements AutoCloseable {
    final String exchange = "txoutbox-fleet-it-" + UUID.randomUUID();
    final Map<String, Integer> counts = new ConcurrentHashMap<>();
    final Map<String, List<Long>> arrivals = new ConcurrentHashMap<>();
    private final Connection connection;
    private final Channel channel;

    Broker() throws Exception {
      ConnectionFactory factory = new ConnectionFactory();
      factory.setUri(RabbitQueue.URI);
      connection = factory.newConnection("txoutbox-fleet-it");
      channel = connection.createChannel();
      channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true);
      String queue = exchange + "-q";
      channel.queueDeclare(queue, false, true, true, null);
      channel.queueBind(queue, exchange, "#");
      channel.basicConsume(
          queue,
          true,
          (tag, delivery) -> {
            long now = System.nanoTime();
            counts.merge(delivery.getProperties().getMessageId(), 1, Integer::sum);
            arrivals
                .computeIfAbsent(
                    delivery.getEnvelope().getRoutingKey(), k -> new CopyOnWriteArrayList<>())
                .add(now);
          },
          tag -> {});
    }

    @Override
    public void close() throws Exception {
      try {
        channel.exchangeDelete(exchange);
      } finally {
        connection.close();
      }
    }
  }

  /** Whether each of {@code outboxes} had a publication after {@code since} (nanoTime). */
  private static boolean publishedSince(List<String> outboxes, long since) {
    return outboxes.stream()
        .allMatch(
            o -> broker.arrivals.getOrDefault(o, List.of()).stream().anyMatch(t -> t > since));
  }

  private static long firstSince(List<String> outboxes, long since) {
    return outboxes.stream()
        .flatMap(o -> broker.arrivals.getOrDefault(o, List.of()).stream())
        .filter(t -> t > since)
        .mapToLong(Long::longValue)
        .min()
        .orElseThrow();
  }

  /**
   * The longest time, in seconds, that one of {@code outboxes} went without a publication between
   * {@code from} and {@code to} (nanoTime), counting from {@code from} to its first and from its
   * last to {@code to}.
   */
  private static double maxGap(List<String> outboxes, long from, long to) {
    long worst = 0;
    for (String o : outboxes) {
      List<Long> times = new ArrayList<>(broker.arrivals.getOrDefault(o, List.of()));
      times.removeIf(t -> t < from || t > to);
      times.sort(null);
      long previous = from;
      for (long t : times) {
        worst = Math.max(worst, t - previous);
        previous = t;
      }
      worst = Math.max(worst, to - previous);
    }
    return worst / 1e9;
  }
}
