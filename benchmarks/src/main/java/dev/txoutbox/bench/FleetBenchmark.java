package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.fleet.FleetNode;
import dev.txoutbox.fleet.FleetOutbox;
import dev.txoutbox.fleet.FleetRegistry;
import dev.txoutbox.fleet.FleetSchema;
import dev.txoutbox.fleet.FleetStatus;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay fleet's cost and its takeover time, two parts in one run. Not part of {@code mvn
 * verify}:
 *
 * <pre>
 * mvn -B -q -o -Pbenchmarks package -pl benchmarks -am -DskipTests
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.FleetBenchmark \
 *     [--outboxes 30] [--events 10000] [--rounds 3] [--kills 10] [--ttl-ms 3000] [--scan-ms 500] \
 *     [--pool-size 1] [--skip-overhead] [--skip-kills]
 * </pre>
 *
 * <ol>
 *   <li><b>Overhead</b>: {@code --outboxes} outboxes (a schema each) with {@code --events} pending
 *       events each, drained by one {@link FleetNode} (registry and leases in the same database)
 *       and by as many separate {@link OutboxRelay}s in this JVM, each with its own pool configured
 *       as the fleet's ({@code --pool-size}, 1 by default: 30 outboxes × the fleet's default of 3
 *       would take most of a default server's 100 connections) and {@link RelayConfig#defaults()},
 *       no-op publishers; rounds interleaved. Drain rate from start to the last event published,
 *       and CPU per event of this JVM and of the database's backends.
 *   <li><b>Takeover</b>: two nodes in child JVMs serve ten outboxes while this JVM writes one event
 *       per outbox every 50 ms; the node holding half of them is killed with SIGKILL {@code
 *       --kills} times (a fresh node joins after each kill and takes its share back). For each kill
 *       the time from the kill to the first event the survivor publishes of each of the dead node's
 *       outboxes, on the database's clock; p50 and max over the kills of the slowest outbox, with
 *       {@code --ttl-ms} / {@code --scan-ms} as the nodes' lease TTL and scan interval (the bound
 *       is TTL + scan + the relay's start).
 * </ol>
 *
 * <p>Database as {@link BenchDatabase} ({@code OUTBOX_BENCH_JDBC_URL}, default database {@code
 * txoutbox_fleet_bench}); its schemas {@code fleet_*} are emptied first.
 */
public final class FleetBenchmark {

  private static final Logger log = LoggerFactory.getLogger(FleetBenchmark.class);

  private static final String CONTROL = "fleet_bench";
  private static final String KILL_CONTROL = "fleet_bench_kill";
  private static final int KILL_OUTBOXES = 10;
  private static final Duration WRITE_EVERY = Duration.ofMillis(50);
  private static final Duration BOUND = Duration.ofMinutes(5);

  private FleetBenchmark() {}

  /** Runs the benchmark; see the class comment for the options. */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--node")) {
      node(args);
      return;
    }
    List<String> given = Arrays.asList(args);
    int outboxes = option(given, "--outboxes", 30);
    int events = option(given, "--events", 10_000);
    int rounds = option(given, "--rounds", 3);
    int kills = option(given, "--kills", 10);
    int ttlMillis = option(given, "--ttl-ms", 3_000);
    int scanMillis = option(given, "--scan-ms", 500);
    int poolSize = option(given, "--pool-size", 1);
    String url = BenchDatabase.url("txoutbox_fleet_bench");
    StringBuilder report = new StringBuilder("# Fleet benchmark\n\n");
    try (BenchDatabase db =
        new BenchDatabase(url, BenchDatabase.user(), BenchDatabase.password())) {
      MachineInfo m = MachineInfo.collect(db.dsl());
      report.append(
          String.format(
              Locale.ROOT,
              "%d cores (%s), %s, PostgreSQL %s, load average at start %s, commit %s%n%n",
              m.cores(),
              m.cpuModel(),
              m.jdk(),
              m.postgresVersion(),
              m.loadAverage(),
              m.gitCommit()));
      if (!given.contains("--skip-overhead")) {
        report.append(overhead(db, outboxes, events, rounds, poolSize));
      }
      if (!given.contains("--skip-kills")) {
        report.append(takeover(db, kills, ttlMillis, scanMillis, poolSize));
      }
    }
    DrainBenchmark.writeReport("fleet", report.toString());
  }

  private static int option(List<String> args, String name, int fallback) {
    int at = args.indexOf(name);
    if (at < 0) {
      return fallback;
    }
    if (at + 1 >= args.size()) {
      throw new IllegalArgumentException(name + " must be followed by a number but was last");
    }
    int value = Integer.parseInt(args.get(at + 1));
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1 but was " + value);
    }
    return value;
  }

  // ---- part 1: 30 outboxes on one node vs 30 relays ----

  private record Run(String what, double rate, double jvmMicros, double pgMicros) {}

  private static String overhead(
      BenchDatabase db, int outboxes, int events, int rounds, int poolSize) throws Exception {
    List<OutboxTables> tables = new ArrayList<>();
    resetSchema(db.dataSource(), CONTROL);
    FleetSchema.migrate(db.dataSource(), CONTROL);
    FleetRegistry registry = FleetRegistry.create(db.dataSource(), CONTROL);
    for (int i = 1; i <= outboxes; i++) {
      OutboxTables t = OutboxTables.in(String.format(Locale.ROOT, "fleet_o%02d", i));
      OutboxSchema.migrate(db.dataSource(), t);
      tables.add(t);
      registry.add(entry(db.url(), String.format(Locale.ROOT, "o%02d", i), t.schema()));
    }
    List<Run> fleet = new ArrayList<>();
    List<Run> relays = new ArrayList<>();
    // Warm-up of both, not counted; then interleaved rounds, alternating which goes first.
    drainWithFleet(db, tables, Math.max(1, events / 5), poolSize);
    drainWithRelays(db, tables, Math.max(1, events / 5), poolSize);
    for (int r = 0; r < rounds; r++) {
      if (r % 2 == 0) {
        fleet.add(drainWithFleet(db, tables, events, poolSize));
        relays.add(drainWithRelays(db, tables, events, poolSize));
      } else {
        relays.add(drainWithRelays(db, tables, events, poolSize));
        fleet.add(drainWithFleet(db, tables, events, poolSize));
      }
    }
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "## %d outboxes × %,d pending events: one FleetNode vs %d OutboxRelays (one JVM)%n%n"
                + "No-op publisher, RelayConfig.defaults(), a pool of %d per outbox; %d interleaved"
                + " rounds after an uncounted warm-up of each. Rate from start to the last event"
                + " published (the fleet's includes joining and taking the leases).%n%n"
                + "| | events/s (median) | JVM CPU µs/event | PostgreSQL CPU µs/event | runs"
                + " (events/s) |%n|---|---|---|---|---|%n",
            tables.size(),
            events,
            tables.size(),
            poolSize,
            rounds));
    double fleetRate = Figures.median(fleet, Run::rate);
    double relayRate = Figures.median(relays, Run::rate);
    for (List<Run> runs : List.of(relays, fleet)) {
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s |%n",
              runs.get(0).what(),
              Figures.rate(Figures.median(runs, Run::rate)),
              Figures.one(Figures.median(runs, Run::jvmMicros)),
              Figures.one(Figures.median(runs, Run::pgMicros)),
              String.join(", ", runs.stream().map(x -> Figures.rate(x.rate())).toList())));
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%nfleet / relays: %s events/s, %s JVM CPU per event, %s PostgreSQL CPU per event%n%n",
            Figures.ratio(fleetRate, relayRate),
            Figures.ratio(
                Figures.median(fleet, Run::jvmMicros), Figures.median(relays, Run::jvmMicros)),
            Figures.ratio(
                Figures.median(fleet, Run::pgMicros), Figures.median(relays, Run::pgMicros))));
    return out.toString();
  }

  private static FleetOutbox entry(String url, String name, String schema) {
    FleetOutbox.Builder b =
        FleetOutbox.builder(name)
            .jdbcUrl(url)
            .user(BenchDatabase.user())
            .schema(schema)
            .publisher("noop");
    if (!BenchDatabase.password().isEmpty()) {
      b.password("env:OUTBOX_BENCH_DB_PASSWORD");
    }
    return b.build();
  }

  private static void seed(BenchDatabase db, List<OutboxTables> tables, int events) {
    for (OutboxTables t : tables) {
      db.dsl()
          .truncate(org.jooq.impl.DSL.table(org.jooq.impl.DSL.name(t.schema(), "outbox_events")))
          .execute();
      SeedEvents.insert(db.dsl(), t.schema(), events, 1_000, null, null);
    }
    for (OutboxTables t : tables) {
      execute(db.dataSource(), "VACUUM ANALYZE " + t.schema() + ".outbox_events");
    }
  }

  private static Run drainWithFleet(
      BenchDatabase db, List<OutboxTables> tables, int events, int poolSize) throws Exception {
    seed(db, tables, events);
    AtomicLong published = new AtomicLong();
    long total = (long) events * tables.size();
    CpuMeter.Sample before = db.cpu().sample();
    long start = System.nanoTime();
    Run run;
    try (FleetNode node =
        FleetNode.builder()
            .controlDataSource(db.dataSource())
            .controlSchema(CONTROL)
            .nodeId("bench")
            .poolSize(poolSize)
            .publishers((outbox, settings, client) -> new Counting(published))
            .build()) {
      node.start();
      waitFor(() -> published.get() >= total, "the fleet's drain");
      run = measured(db, "one FleetNode", before, start, total);
    }
    requireDrained(db, tables, run.what());
    return run;
  }

  private static Run drainWithRelays(
      BenchDatabase db, List<OutboxTables> tables, int events, int poolSize) throws Exception {
    seed(db, tables, events);
    AtomicLong published = new AtomicLong();
    long total = (long) events * tables.size();
    List<HikariDataSource> pools = new ArrayList<>();
    List<OutboxRelay> relays = new ArrayList<>();
    CpuMeter.Sample before = db.cpu().sample();
    long start = System.nanoTime();
    Run run;
    try {
      for (OutboxTables t : tables) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(db.url());
        c.setUsername(BenchDatabase.user());
        c.setPassword(BenchDatabase.password());
        // as a fleet node configures each outbox's pool
        c.setMaximumPoolSize(poolSize);
        c.setMinimumIdle(0);
        c.setConnectionTimeout(5_000);
        c.setInitializationFailTimeout(-1);
        c.setPoolName("relay-" + t.schema());
        HikariDataSource pool = new HikariDataSource(c);
        pools.add(pool);
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(pool)
                .tables(t)
                .publisher(new Counting(published))
                .config(RelayConfig.defaults().toBuilder().name("relay-" + t.schema()).build())
                .build();
        relays.add(relay);
        relay.start();
      }
      waitFor(() -> published.get() >= total, "the relays' drain");
      run = measured(db, tables.size() + " OutboxRelays", before, start, total);
    } finally {
      relays.forEach(OutboxRelay::close);
      pools.forEach(HikariDataSource::close);
    }
    requireDrained(db, tables, run.what());
    return run;
  }

  /** The run's figures, taken when the last event was counted: closing is not part of it. */
  private static Run measured(
      BenchDatabase db, String what, CpuMeter.Sample before, long start, long total) {
    double seconds = (System.nanoTime() - start) / 1e9;
    CpuMeter.Sample used = db.cpu().sample().minus(before);
    Run run =
        new Run(
            what,
            total / seconds,
            used.jvmNanos() / 1e3 / total,
            used.postgresNanos() / 1e3 / total);
    log.info(
        "{}: {} events/s, {} / {} µs per event", what, run.rate(), run.jvmMicros(), run.pgMicros());
    return run;
  }

  private static void requireDrained(BenchDatabase db, List<OutboxTables> tables, String what) {
    long pending = 0;
    for (OutboxTables t : tables) {
      pending +=
          db.dsl()
              .fetchCount(
                  org.jooq.impl.DSL.table(org.jooq.impl.DSL.name(t.schema(), "outbox_events")),
                  org.jooq.impl.DSL.field(org.jooq.impl.DSL.name("processed_at")).isNull());
    }
    if (pending != 0) {
      throw new IllegalStateException(what + " left " + pending + " events pending");
    }
  }

  /** Counts what it is given and acknowledges it. */
  private static final class Counting implements Publisher {
    private final AtomicLong count;

    Counting(AtomicLong count) {
      this.count = count;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) {
      count.addAndGet(messages.size());
      return Collections.nCopies(messages.size(), PublishResult.published());
    }
  }

  // ---- part 2: SIGKILL of a node, time to publishing again ----

  private static String takeover(
      BenchDatabase db, int kills, int ttlMillis, int scanMillis, int poolSize) throws Exception {
    DataSource ds = db.dataSource();
    resetSchema(ds, KILL_CONTROL);
    FleetSchema.migrate(ds, KILL_CONTROL);
    execute(
        ds,
        "CREATE TABLE "
            + KILL_CONTROL
            + ".published (event_id uuid NOT NULL, outbox text NOT NULL, node text NOT NULL,"
            + " at timestamptz NOT NULL DEFAULT clock_timestamp())");
    execute(ds, "CREATE INDEX ON " + KILL_CONTROL + ".published (outbox, at)");
    FleetRegistry registry = FleetRegistry.create(ds, KILL_CONTROL);
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= KILL_OUTBOXES; i++) {
      String schema = String.format(Locale.ROOT, "fleet_k%02d", i);
      OutboxSchema.migrate(ds, schema);
      execute(ds, "TRUNCATE " + schema + ".outbox_events");
      String name = String.format(Locale.ROOT, "k%02d", i);
      registry.add(entry(db.url(), name, schema));
      names.add(name);
    }
    Path logs = Path.of("benchmarks", "target", "fleet-bench-logs");
    Files.createDirectories(logs);
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread writer = new Thread(() -> write(ds, writing), "fleet-bench-writer");
    List<Process> processes = new ArrayList<>();
    List<Double> slowest = new ArrayList<>();
    List<Double> every = new ArrayList<>();
    try {
      Process survivor = start(db.url(), "survivor", ttlMillis, scanMillis, poolSize, logs);
      processes.add(survivor);
      writer.start();
      for (int k = 1; k <= kills; k++) {
        String victimId = "victim" + k;
        Process victim = start(db.url(), victimId, ttlMillis, scanMillis, poolSize, logs);
        processes.add(victim);
        int half = KILL_OUTBOXES / 2;
        waitFor(
            () ->
                held(registry, victimId).size() == half
                    && held(registry, "survivor").size() == half,
            "the fleet's balance before kill " + k);
        List<String> ofVictim = held(registry, victimId);
        String since = dbNow(ds);
        waitFor(
            () ->
                firstPublished(ds, ofVictim, since).values().stream()
                        .filter(byNode -> byNode.containsKey(victimId))
                        .count()
                    == ofVictim.size(),
            "the victim publishing each of its outboxes");
        String killedAt = dbNow(ds);
        victim.destroyForcibly(); // SIGKILL: no release, no close
        if (!victim.waitFor(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException(victimId + " did not die");
        }
        waitFor(
            () -> servedAgain(ds, ofVictim, victimId, killedAt).size() == ofVictim.size(),
            "the dead node's outboxes served again");
        Map<String, Double> gaps = servedAgain(ds, ofVictim, victimId, killedAt);
        every.addAll(gaps.values());
        double worst = Collections.max(gaps.values());
        slowest.add(worst);
        log.info("kill {}: the dead node's outboxes published again after {} s at most", k, worst);
      }
    } finally {
      writing.set(false);
      writer.join();
      for (Process p : processes) {
        p.destroy();
      }
      for (Process p : processes) {
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
    double[] s = slowest.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] e = every.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return String.format(
        Locale.ROOT,
        "## Node death to publishing again (%d SIGKILLs)%n%n"
            + "Two nodes in child JVMs, %d outboxes, one event per outbox every %d ms; lease TTL %d"
            + " ms, scan every %d ms (the bound: TTL + scan + the relay's start). Measured on the"
            + " database's clock from just before the kill to the first event the survivor"
            + " published of each of the dead node's outboxes.%n%n"
            + "| | p50 | max |%n|---|---|---|%n"
            + "| slowest outbox of each kill (s) | %.2f | %.2f |%n"
            + "| every outbox of every kill (s, %d) | %.2f | %.2f |%n%n"
            + "per kill (s): %s%n%n",
        kills,
        KILL_OUTBOXES,
        WRITE_EVERY.toMillis(),
        ttlMillis,
        scanMillis,
        Figures.median(s),
        s[s.length - 1],
        e.length,
        Figures.median(e),
        e[e.length - 1],
        slowest.stream().map(v -> String.format(Locale.ROOT, "%.2f", v)).toList());
  }

  private static Process start(String url, String id, int ttl, int scan, int pool, Path logs)
      throws Exception {
    return new ProcessBuilder(
            ChildJvm.command(
                ChildJvm.classPath(),
                List.of("-Xmx256m"),
                FleetBenchmark.class,
                List.of(
                    "--node",
                    url,
                    id,
                    String.valueOf(ttl),
                    String.valueOf(scan),
                    String.valueOf(pool))))
        .redirectErrorStream(true)
        .redirectOutput(logs.resolve(id + ".log").toFile())
        .start();
  }

  /** One event into each outbox every {@link #WRITE_EVERY}, on one connection. */
  private static void write(DataSource ds, AtomicBoolean writing) {
    long next = System.nanoTime();
    while (writing.get()) {
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement()) {
        while (writing.get()) {
          for (int i = 1; i <= KILL_OUTBOXES; i++) {
            s.addBatch(
                String.format(
                    Locale.ROOT,
                    "INSERT INTO fleet_k%02d.outbox_events (id, aggregate_type, aggregate_id,"
                        + " event_type, payload) VALUES (gen_random_uuid(), 'order', '1',"
                        + " 'order.created', '{}')",
                    i));
          }
          s.executeBatch();
          next += WRITE_EVERY.toNanos();
          LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
        }
      } catch (SQLException e) {
        log.warn("writer: {}", e.getMessage());
        LockSupport.parkNanos(WRITE_EVERY.toNanos());
      }
    }
  }

  /** The outboxes {@code node} holds a live lease of, by name. */
  private static List<String> held(FleetRegistry registry, String node) {
    return registry.status().leases().stream()
        .filter(l -> l.live() && node.equals(l.owner()))
        .map(FleetStatus.Lease::name)
        .toList();
  }

  private static String dbNow(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT clock_timestamp()::text")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * For each of {@code outboxes}, each node that published an event of it after {@code after}, and
   * the seconds from {@code after} to its first.
   */
  private static Map<String, Map<String, Double>> firstPublished(
      DataSource ds, List<String> outboxes, String after) throws SQLException {
    Map<String, Map<String, Double>> out = new TreeMap<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT outbox, node, extract(epoch FROM min(at) - ?::timestamptz)::float8 FROM "
                    + KILL_CONTROL
                    + ".published WHERE outbox = ANY(?) AND at > ?::timestamptz"
                    + " GROUP BY outbox, node")) {
      ps.setString(1, after);
      ps.setArray(2, c.createArrayOf("text", outboxes.toArray()));
      ps.setString(3, after);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.computeIfAbsent(rs.getString(1), k -> new TreeMap<>())
              .put(rs.getString(2), rs.getDouble(3));
        }
      }
    }
    return out;
  }

  /** For each of {@code outboxes}: the first publication by another node than {@code dead}. */
  private static Map<String, Double> servedAgain(
      DataSource ds, List<String> outboxes, String dead, String after) throws SQLException {
    Map<String, Double> out = new TreeMap<>();
    firstPublished(ds, outboxes, after)
        .forEach(
            (outbox, byNode) ->
                byNode.entrySet().stream()
                    .filter(e -> !e.getKey().equals(dead))
                    .mapToDouble(Map.Entry::getValue)
                    .min()
                    .ifPresent(first -> out.put(outbox, first)));
    return out;
  }

  private interface Check {
    boolean ok() throws Exception;
  }

  private static void waitFor(Check check, String what) throws Exception {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (!check.ok()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(what + " did not happen within " + BOUND);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  private static void resetSchema(DataSource ds, String schema) {
    execute(ds, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  private static void execute(DataSource ds, String sql) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  // ---- a node in a child JVM ----

  /**
   * {@code --node <url> <node-id> <ttl-ms> <scan-ms> <pool-size>}: a fleet node of the takeover
   * part whose "broker" is the table {@code published}; SIGTERM closes it.
   */
  private static void node(String[] args) throws Exception {
    // 6: the node's scans and LISTEN, and the publishers' inserts
    HikariDataSource control = BenchDatabase.pool(args[1], 6, "control");
    String id = args[2];
    FleetNode node =
        FleetNode.builder()
            .controlDataSource(control)
            .controlSchema(KILL_CONTROL)
            .nodeId(id)
            .leaseTtl(Duration.ofMillis(Integer.parseInt(args[3])))
            .scanInterval(Duration.ofMillis(Integer.parseInt(args[4])))
            .poolSize(Integer.parseInt(args[5]))
            .publishers(
                (outbox, settings, client) -> new TablePublisher(control, outbox.name(), id))
            .build();
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  node.close();
                  closed.countDown();
                }));
    node.start();
    closed.await();
  }

  /** Records each message in {@code published} of the control schema, then acknowledges it. */
  private record TablePublisher(DataSource control, String outbox, String node)
      implements Publisher {
    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) {
      try (Connection c = control.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + KILL_CONTROL
                      + ".published (event_id, outbox, node) SELECT id, ?, ? FROM"
                      + " unnest(?::uuid[]) AS id")) {
        ps.setString(1, outbox);
        ps.setString(2, node);
        ps.setArray(3, c.createArrayOf("uuid", messages.stream().map(OutboxMessage::id).toArray()));
        ps.executeUpdate();
        return Collections.nCopies(messages.size(), PublishResult.published());
      } catch (SQLException e) {
        return Collections.nCopies(
            messages.size(), PublishResult.brokerUnavailable(String.valueOf(e.getMessage())));
      }
    }
  }
}
