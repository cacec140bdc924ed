package dev.txoutbox.bench;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.CompletionMode;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.LogicalServer;
import dev.txoutbox.wal.WalRelay;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL relay ({@code outbox-wal}) against the polling relay, both on a {@link LogicalServer} of
 * the benchmark's own ({@code wal_level=logical}): the drain of a backlog the slot holds, commit →
 * publish latency from writers in another process ({@link RemoteWriters}), and the writers' rate
 * with the slot active. Run by {@link Report} as its WAL section ({@code --sections wal}).
 *
 * <p>Every slot and publication it makes is dropped again before the next case, so no case pays for
 * WAL another case left behind.
 */
final class WalBenchmark {

  private static final Logger log = LoggerFactory.getLogger(WalBenchmark.class);

  /** The database on the logical server. */
  static final String DATABASE = "txoutbox_bench";

  static final String USER = "postgres";

  /** The polling relay's best shape in the drain section's marking cases: 2 workers × 500. */
  static final DrainBenchmark.Case POLLING_BEST =
      new DrainBenchmark.Case("noop", 2, 500, CompletionMode.MARK_PROCESSED);

  /** The polling relay's best shape of all in the drain section: 2 workers × 500, deleting. */
  static final DrainBenchmark.Case POLLING_DELETE =
      new DrainBenchmark.Case("noop", 2, 500, CompletionMode.DELETE);

  /** The polling relay's drain shapes, the references of the WAL drain. */
  static final List<DrainBenchmark.Case> POLLING_SHAPES = List.of(POLLING_BEST, POLLING_DELETE);

  /** The WAL relay's batch in the drain, the polling relay's best batch size. */
  static final int WAL_BATCH = 500;

  /**
   * What the WAL drain runs: the WAL relay in three shapes, and a {@link SlotReader} that records
   * nothing, the bound of every WAL relay.
   */
  enum WalShape {
    ONE(1, CompletionMode.MARK_PROCESSED),
    TWO(2, CompletionMode.MARK_PROCESSED),
    TWO_DELETE(2, CompletionMode.DELETE),
    /** The bare read; its slot is made by a relay of one batch at a time, marking, never run. */
    READ(1, CompletionMode.MARK_PROCESSED);

    final int concurrentBatches;
    final CompletionMode mode;

    WalShape(int concurrentBatches, CompletionMode mode) {
      this.concurrentBatches = concurrentBatches;
      this.mode = mode;
    }

    /** Whether a WAL relay runs it, recording outcomes; false for the bare read. */
    boolean relay() {
      return this != READ;
    }

    /** What runs, for the report's first column. */
    String what() {
      return relay()
          ? "WAL relay"
          : "slot read alone, nothing recorded (the bound of any WAL relay)";
    }

    /** The relay's shape, e.g. {@code batch 500 × 2 at a time, mark}; empty for the bare read. */
    String shape() {
      if (!relay()) {
        return "";
      }
      return "batch "
          + WAL_BATCH
          + (concurrentBatches == 1 ? "" : " × " + concurrentBatches + " at a time")
          + (mode == CompletionMode.DELETE ? ", delete" : ", mark");
    }

    /** {@link #what()} and {@link #shape()}, for the log. */
    String label() {
      return relay() ? what() + ", " + shape() : what();
    }
  }

  private WalBenchmark() {}

  /**
   * The WAL drain's runs by shape, the polling relay's by shape, the WAL the slot held per event
   * after the seed, and why the WAL drain stopped early (null if it did not).
   */
  record Drain(
      Map<WalShape, List<DrainBenchmark.Measurement>> wal,
      Map<DrainBenchmark.Case, List<DrainBenchmark.Measurement>> polling,
      List<Double> walBytesPerEvent,
      String failure) {}

  /** How long one WAL drain may take before the section reports it unfinished. */
  static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(20);

  /** The replication connection's properties on the logical server. */
  static Properties credentials() {
    Properties p = new Properties();
    p.setProperty("user", USER);
    return p;
  }

  /** Where Debian installs each major version's binaries, {@code <dir>/<version>/bin}. */
  private static final Path POSTGRES_VERSIONS = Path.of("/usr/lib/postgresql");

  /**
   * A cluster of the benchmark's own with {@code wal_level=logical} ({@link
   * LogicalServer#cluster}), of the newest PostgreSQL installed under {@code /usr/lib/postgresql},
   * with {@code settings} as written in {@code postgresql.conf} ({@link #quoted}).
   *
   * @throws IOException if no version is installed there, or the cluster cannot start
   */
  static LogicalServer logicalServer(Map<String, String> settings)
      throws IOException, InterruptedException {
    int newest;
    try (Stream<Path> versions = Files.list(POSTGRES_VERSIONS)) {
      newest =
          versions
              .map(p -> p.getFileName().toString())
              .filter(v -> v.matches("[0-9]+"))
              .mapToInt(Integer::parseInt)
              .filter(LogicalServer::available)
              .max()
              .orElseThrow(
                  () -> new IOException("no PostgreSQL binaries under " + POSTGRES_VERSIONS));
    }
    return LogicalServer.cluster(newest, settings);
  }

  /** The settings quoted as {@code postgresql.conf} wants a value that is not a number. */
  static Map<String, String> quoted(Map<String, String> settings) {
    Map<String, String> out = new LinkedHashMap<>();
    settings.forEach((k, v) -> out.put(k, "'" + v.replace("'", "''") + "'"));
    return out;
  }

  /** Sets the WAL relay's minimum batch interval, in milliseconds; unset, its default. */
  static final String MIN_BATCH_INTERVAL_PROPERTY = "txoutbox.bench.walMinBatchIntervalMillis";

  /**
   * The WAL relay's minimum batch interval: {@link #MIN_BATCH_INTERVAL_PROPERTY}, or {@link
   * WalRelay#DEFAULT_MIN_BATCH_INTERVAL}.
   */
  static Duration minBatchInterval() {
    String millis = System.getProperty(MIN_BATCH_INTERVAL_PROPERTY);
    return millis == null
        ? WalRelay.DEFAULT_MIN_BATCH_INTERVAL
        : Duration.ofNanos(Math.round(Double.parseDouble(millis) * 1_000_000));
  }

  /**
   * A WAL relay configured by {@code config} on the outbox of {@code schema} with {@code
   * concurrentBatches}, without its sweeper.
   */
  static WalRelay walRelay(
      LogicalServer server,
      String database,
      DataSource dataSource,
      String schema,
      Publisher publisher,
      RelayListener listener,
      RelayConfig config,
      int concurrentBatches) {
    return WalRelay.builder()
        .dataSource(dataSource)
        .replicationUrl(server.jdbcUrl(database), credentials())
        .tables(OutboxTables.of(schema, ""))
        .publisher(publisher)
        .listener(listener)
        .config(config)
        .minBatchInterval(minBatchInterval())
        .concurrentBatches(concurrentBatches)
        .sweeper(false) // the drain measures the slot reader alone; no poll may race it
        .build();
  }

  /**
   * Drops the relay's slot and publication if they exist, once the slot is no longer active (the
   * WAL sender ends a moment after the relay closed its connection).
   */
  static void dropSlot(DSLContext dsl, WalRelay relay) throws InterruptedException {
    // Catalog view and functions, DROP PUBLICATION: no generated model for them.
    org.jooq.Table<?> slots = DSL.table(DSL.name("pg_catalog", "pg_replication_slots"));
    org.jooq.Condition mine = DSL.field(DSL.name("slot_name"), String.class).eq(relay.slotName());
    org.jooq.Field<Boolean> active = DSL.field(DSL.name("active"), Boolean.class);
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (dsl.fetchExists(slots, mine.and(active)) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    dsl.select(DSL.function("pg_drop_replication_slot", Object.class, DSL.field("slot_name")))
        .from(slots)
        .where(mine)
        .fetch();
    dsl.execute("DROP PUBLICATION IF EXISTS " + DSL.name(relay.publicationName()));
  }

  /**
   * Drains {@code events} in every {@link WalShape} and with the polling relay's {@link
   * #POLLING_SHAPES} on the same server, in {@code rounds} interleaved rounds after a warm-up of
   * all with {@code warmupEvents}.
   */
  static Drain drain(
      LogicalServer server, BenchDatabase db, int events, int rounds, int warmupEvents)
      throws Exception {
    Map<WalShape, List<DrainBenchmark.Measurement>> wal = new java.util.EnumMap<>(WalShape.class);
    List<Double> walBytes = new ArrayList<>();
    Map<DrainBenchmark.Case, List<DrainBenchmark.Measurement>> polling =
        new java.util.LinkedHashMap<>();
    try (DrainBenchmark.Targets targets = DrainBenchmark.Targets.start(List.of("noop"))) {
      for (int round = warmupEvents > 0 ? 0 : 1; round <= rounds; round++) {
        int n = round == 0 ? warmupEvents : events;
        log.info(round == 0 ? "WAL drain warm-up" : "WAL drain round {} of {}", round, rounds);
        Map<WalShape, DrainBenchmark.Measurement> measured =
            new java.util.EnumMap<>(WalShape.class);
        double[] held = new double[1];
        for (WalShape shape : WalShape.values()) {
          try {
            measured.put(
                shape,
                walDrain(
                    server,
                    db,
                    targets.get("noop"),
                    n,
                    shape,
                    shape == WalShape.ONE ? held : new double[1]));
          } catch (IllegalStateException unfinished) {
            log.warn("the WAL drain did not finish: {}", unfinished.getMessage());
            return new Drain(
                wal,
                polling,
                walBytes,
                String.format(
                    "%,d events, round %d, %s %s: %s (timeout %d min)",
                    n,
                    round,
                    shape.what(),
                    shape.shape(),
                    unfinished.getMessage(),
                    DRAIN_TIMEOUT.toMinutes()));
          }
        }
        Map<DrainBenchmark.Case, List<DrainBenchmark.Measurement>> p =
            DrainBenchmark.measure(db, targets, POLLING_SHAPES, c -> n, 1, 0, 0);
        if (round > 0) {
          measured.forEach((shape, m) -> wal.computeIfAbsent(shape, k -> new ArrayList<>()).add(m));
          walBytes.add(held[0]);
          p.forEach((c, ms) -> polling.computeIfAbsent(c, k -> new ArrayList<>()).addAll(ms));
        }
      }
    }
    return new Drain(wal, polling, walBytes, null);
  }

  /**
   * One WAL drain: the slot is made (by a relay started and closed on the empty outbox) before the
   * seed, so the WAL holds the seeded events; then a relay of {@code shape} is timed from its start
   * to the commit of the batch with the last event (the bare read: from opening its stream to the
   * last event's Insert read), and the slot dropped.
   *
   * @param heldBytesPerEvent receives the slot's lag after the seed's inserts, per event
   */
  private static DrainBenchmark.Measurement walDrain(
      LogicalServer server,
      BenchDatabase db,
      Target target,
      int events,
      WalShape shape,
      double[] heldBytesPerEvent)
      throws Exception {
    try (Publisher publisher = target.publisher()) {
      java.util.function.BiFunction<RelayListener, String, WalRelay> relayOn =
          (listener, name) ->
              walRelay(
                  server,
                  DATABASE,
                  db.dataSource(),
                  BenchDatabase.SCHEMA,
                  publisher,
                  listener,
                  config(name, WAL_BATCH, shape.mode),
                  shape.concurrentBatches);
      WalRelay setup = relayOn.apply(new RelayListener() {}, "bench-setup");
      db.dsl().truncate(DSL.table(DSL.name(BenchDatabase.SCHEMA, "outbox_events"))).execute();
      setup.start();
      setup.close();
      try {
        db.seed(
            events,
            DrainBenchmark.DEFAULT_AGGREGATES,
            () -> heldBytesPerEvent[0] = (double) setup.slotLagBytes() / events);
        String label = shape.label();
        if (!shape.relay()) {
          CpuMeter.Sample before = db.cpu().sample();
          long start = System.nanoTime();
          try (SlotReader reader =
              SlotReader.open(
                  server.jdbcUrl(DATABASE),
                  credentials(),
                  setup.slotName(),
                  setup.publicationName())) {
            if (!reader.readInserts(events, DRAIN_TIMEOUT)) {
              throw new IllegalStateException(
                  label + ": " + (events - reader.inserts()) + " events not read in time");
            }
            long nanos = System.nanoTime() - start;
            // Before the close: the WAL sender's backend ends with the replication connection.
            CpuMeter.Sample spent = db.cpu().sample().minus(before);
            return DrainBenchmark.measurement(label, events, nanos, spent);
          }
        }
        DrainBenchmark.DrainClock clock = new DrainBenchmark.DrainClock(events);
        WalRelay relay = relayOn.apply(clock, "bench");
        CpuMeter.Sample before = db.cpu().sample();
        clock.start();
        relay.start();
        boolean finished = clock.await(DRAIN_TIMEOUT);
        // Before the close: the WAL sender's backend ends with the replication connection.
        CpuMeter.Sample spent = db.cpu().sample().minus(before);
        relay.close(Duration.ofSeconds(30));
        long nanos = clock.nanos(label, finished);
        return DrainBenchmark.measurement(label, events, nanos, spent);
      } finally {
        dropSlot(db.dsl(), setup);
      }
    }
  }

  /** How the relay of a latency run learns of a commit in another process. */
  enum LatencyMode {
    WAL("WAL relay"),
    NOTIFY("polling relay, LISTEN/NOTIFY"),
    POLL("polling relay alone");

    final String label;

    LatencyMode(String label) {
      this.label = label;
    }
  }

  /**
   * One latency run: the writers' steady part (their own rate), the sorted latencies in nanoseconds
   * (from microsecond clocks), events not seen within 30 s, those of them still pending in the
   * table, and CPU of this JVM (the relay's) and of every backend of the database (the writers'
   * included). For the WAL relay also the events it read from the WAL and did not publish ({@link
   * WalRelay#skippedEvents()}, warm-up included) and how long before the first counted commit its
   * slot existed; -1 for the polling relay.
   */
  record Latency(
      LatencyMode mode,
      LatencyBenchmark.Steady steady,
      long[] sortedNanos,
      long unpublished,
      long stillPending,
      long walSkipped,
      long slotLeadMillis,
      CpuMeter.Sample cpu) {}

  /**
   * Commit → publish latency of {@code mode}: {@link RemoteWriters} in a child JVM commit at {@code
   * rate} for {@code warmup} + {@code length}; the relay here (1 × 100) publishes to a no-op
   * publisher that notes the wall-clock time it first saw each event.
   */
  static Latency latency(
      LogicalServer server, LatencyMode mode, int rate, Duration warmup, Duration length)
      throws Exception {
    String schema = LatencyBenchmark.SCHEMA;
    try (HikariDataSource pool = pool(server.jdbcUrl(DATABASE), 6, "wal-latency")) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.dropSchemaIfExists(schema).cascade().execute();
      OutboxSchema.migrate(pool, schema);
      if (mode == LatencyMode.NOTIFY) {
        OutboxSchema.migrateNotifyTrigger(pool, schema);
      }
      // A table in service: a processed history and planner statistics.
      SeedEvents.insert(dsl, schema, HISTORY, 1_000, DSL.currentOffsetDateTime(), null);
      // VACUUM is a utility command jOOQ does not model.
      ClaimBenchmark.execute(pool, "VACUUM ANALYZE " + schema + ".outbox_events");
      LatencyBenchmark.FirstSeen seen = new LatencyBenchmark.FirstSeen(RemoteWriters::wallMicros);
      WalRelay wal = null;
      long slotMadeMicros = 0;
      OutboxRelay polling = null;
      if (mode == LatencyMode.WAL) {
        wal =
            walRelay(
                server,
                DATABASE,
                pool,
                schema,
                seen,
                new RelayListener() {},
                config("latency", 100, CompletionMode.MARK_PROCESSED),
                1);
        // start() returns once the slot exists: every commit after it is in the slot.
        wal.start();
        slotMadeMicros = RemoteWriters.wallMicros();
      } else {
        polling = LatencyBenchmark.pollingRelay(pool, schema, seen, mode == LatencyMode.NOTIFY);
        polling.start();
      }
      Path file = Files.createTempFile("txoutbox-latency-", ".txt");
      try (RemoteWriters.Child child =
          RemoteWriters.start(
              server.jdbcUrl(DATABASE), USER, "", schema, rate, warmup, length, file)) {
        CpuMeter meter = new CpuMeter(dsl);
        child.await("measuring");
        CpuMeter.Sample before = meter.sample();
        LatencyBenchmark.Steady steady = RemoteWriters.read(file, child.await("written"));
        CpuMeter.Sample cpu =
            awaitSeen(steady.committedAt(), seen.at(), meter, Duration.ofSeconds(30)).minus(before);
        long[] micros = LatencyBenchmark.latencies(steady.committedAt(), seen.at());
        long[] nanos = java.util.Arrays.stream(micros).map(m -> m * 1_000).toArray();
        long firstCommit = steady.committedAt().values().stream().mapToLong(m -> m).min().orElse(0);
        Latency l =
            new Latency(
                mode,
                steady,
                nanos,
                steady.committedAt().size() - nanos.length,
                stillPending(dsl, schema, steady.committedAt().keySet(), seen.at().keySet()),
                wal == null ? -1 : wal.skippedEvents(),
                wal == null ? -1 : (firstCommit - slotMadeMicros) / 1_000,
                cpu);
        log.info(
            "{}: {} events at {} events/s, p50 {} ms, p99 {} ms, {} unpublished ({} still pending"
                + " in the table), {} failed writes",
            mode.label,
            nanos.length,
            Math.round(steady.committedAt().size() / steady.seconds()),
            Figures.two(Figures.percentile(nanos, 0.50) / 1e6),
            Figures.two(Figures.percentile(nanos, 0.99) / 1e6),
            l.unpublished(),
            l.stillPending(),
            steady.failed());
        if (wal != null) {
          log.info(
              "WAL relay: {} skipped, slot made {} ms before the first counted commit",
              l.walSkipped(),
              l.slotLeadMillis());
        }
        return l;
      } finally {
        Files.deleteIfExists(file);
        if (wal != null) {
          wal.close();
          dropSlot(dsl, wal);
        }
        if (polling != null) {
          polling.close(Duration.ofSeconds(10));
        }
      }
    }
  }

  /**
   * Waits until every committed event is seen or {@code timeout} passes, and returns the CPU sample
   * taken when the last event was seen: the wait for events that never come is not the relay's
   * work, and would weigh on the CPU per event of a relay that misses some.
   */
  private static CpuMeter.Sample awaitSeen(
      Map<java.util.UUID, Long> committed,
      Map<java.util.UUID, Long> seen,
      CpuMeter meter,
      Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int count = seen.size();
    CpuMeter.Sample atLast = meter.sample();
    while (!seen.keySet().containsAll(committed.keySet()) && System.nanoTime() < deadline) {
      java.util.concurrent.TimeUnit.MILLISECONDS.sleep(20);
      if (seen.size() != count) {
        count = seen.size();
        atLast = meter.sample();
      }
    }
    return atLast;
  }

  /** How many of the {@code committed} events not {@code seen} are still pending in the table. */
  private static long stillPending(
      DSLContext dsl,
      String schema,
      java.util.Set<java.util.UUID> committed,
      java.util.Set<java.util.UUID> seen) {
    java.util.UUID[] unseen =
        committed.stream().filter(id -> !seen.contains(id)).toArray(java.util.UUID[]::new);
    if (unseen.length == 0) {
      return 0;
    }
    DSLContext mapped =
        DSL.using(dsl.configuration().derive(OutboxSchema.withSchema(null, schema)));
    return mapped.fetchCount(
        OUTBOX_EVENTS,
        OUTBOX_EVENTS.ID.eq(DSL.any(unseen)).and(OUTBOX_EVENTS.PROCESSED_AT.isNull()));
  }

  /** Processed events in the outbox before a latency run, analyzed. */
  static final int HISTORY = 10_000;

  /** What runs beside the writers of a writer run. */
  enum SlotState {
    NONE("no slot, nothing consuming"),
    POLLING("no slot, polling relay (2 × 500) consuming"),
    WAL("slot, WAL relay consuming"),
    READ("slot read alone, nothing recorded"),
    INACTIVE("slot inactive, retaining WAL");

    final String label;

    SlotState(String label) {
      this.label = label;
    }
  }

  /**
   * {@link WriterBenchmark}'s {@code outbox.record} case on the logical server at each of {@code
   * threads}, beside each {@link SlotState}, in {@code rounds} interleaved rounds (each state's run
   * after its own warm-up).
   *
   * @return the runs by state and writer count ({@code "<state>/<threads>"})
   */
  static Map<String, List<WriterBenchmark.Run>> writers(
      LogicalServer server,
      int[] threads,
      List<SlotState> states,
      Duration length,
      int rounds,
      Duration warmup)
      throws Exception {
    Map<String, List<WriterBenchmark.Run>> runs = new java.util.LinkedHashMap<>();
    for (int round = 0; round <= rounds; round++) {
      // Round 0, not counted, warms the JIT; each round starts with another state.
      List<SlotState> order = new ArrayList<>(states);
      java.util.Collections.rotate(order, -round);
      for (SlotState state : round == 0 ? List.of(SlotState.NONE) : order) {
        log.info("writers beside {}, round {} of {}", state.label, round, rounds);
        WriterBenchmark.Measured m =
            WriterBenchmark.measure(
                server.jdbcUrl(WriterBenchmark.DATABASE),
                USER,
                "",
                threads,
                List.of(WriterBenchmark.Case.OUTBOX),
                length,
                1,
                warmup,
                false,
                db -> alongside(server, db, state));
        for (int t : round == 0 ? new int[0] : threads) {
          runs.computeIfAbsent(state.name() + "/" + t, k -> new ArrayList<>())
              .addAll(m.runs().get(t + "/" + WriterBenchmark.Case.OUTBOX.key));
        }
      }
    }
    return runs;
  }

  private static WriterBenchmark.Running alongside(
      LogicalServer server, BenchDatabase db, SlotState state) throws Exception {
    Publisher noop = new NoopTarget().publisher();
    String schema = WriterBenchmark.SCHEMA;
    return switch (state) {
      case NONE -> () -> {};
      case POLLING -> {
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(db.dataSource())
                .schema(schema)
                .publisher(noop)
                .config(
                    RelayConfig.builder()
                        .name("writer-polling")
                        .workers(POLLING_BEST.workers())
                        .batchSize(POLLING_BEST.batchSize())
                        .build())
                .build();
        relay.start();
        yield running(db, schema, () -> relay.close(Duration.ofSeconds(10)));
      }
      case READ -> {
        // The WAL relay's start and close make its slot and publication, which the bare reader
        // then reads: the WAL sender's work for the writers, and no relay's.
        WalRelay setup = writerRelay(server, db, noop, new RelayListener() {}, "writer-read");
        setup.start();
        setup.close();
        SlotReader reader;
        try {
          reader =
              SlotReader.open(
                  server.jdbcUrl(WriterBenchmark.DATABASE),
                  credentials(),
                  setup.slotName(),
                  setup.publicationName());
        } catch (Exception e) {
          dropSlot(db.dsl(), setup);
          throw e;
        }
        reader.readInBackground();
        // Rows stay pending (nothing records them): nothing to wait for.
        yield () -> {
          reader.close();
          log.info("{}: {} events read", state.label, reader.inserts());
          dropSlot(db.dsl(), setup);
        };
      }
      case WAL, INACTIVE -> {
        java.util.concurrent.atomic.LongAdder batches = new java.util.concurrent.atomic.LongAdder();
        java.util.concurrent.atomic.LongAdder events = new java.util.concurrent.atomic.LongAdder();
        RelayListener counting =
            new RelayListener() {
              @Override
              public void batchCompleted(
                  int claimed, int published, int failed, Duration duration) {
                batches.increment();
                events.add(claimed);
              }
            };
        WalRelay relay = writerRelay(server, db, noop, counting, "writer-wal");
        relay.start();
        if (state == SlotState.INACTIVE) {
          relay.close();
        }
        AutoCloseable stop =
            () -> {
              relay.close();
              log.info(
                  "{}: {} batches of {} events on average, {} skipped; the slot held {} MB at the"
                      + " end",
                  state.label,
                  batches.sum(),
                  String.format("%.1f", events.sum() / (double) Math.max(1, batches.sum())),
                  relay.skippedEvents(),
                  relay.slotLagBytes() >> 20);
              dropSlot(db.dsl(), relay);
            };
        // A slot nobody reads keeps its events pending: nothing to wait for.
        yield state == SlotState.INACTIVE ? stop::close : running(db, schema, stop);
      }
    };
  }

  /** The WAL relay of the writer part: batch {@link #WAL_BATCH}, one at a time, marking. */
  private static WalRelay writerRelay(
      LogicalServer server,
      BenchDatabase db,
      Publisher publisher,
      RelayListener listener,
      String name) {
    return walRelay(
        server,
        WriterBenchmark.DATABASE,
        db.dataSource(),
        WriterBenchmark.SCHEMA,
        publisher,
        listener,
        config(name, WAL_BATCH, CompletionMode.MARK_PROCESSED),
        1);
  }

  /** A relay named {@code name} of batches of {@code batchSize} completing by {@code mode}. */
  static RelayConfig config(String name, int batchSize, CompletionMode mode) {
    return RelayConfig.builder().name(name).batchSize(batchSize).completionMode(mode).build();
  }

  /**
   * A relay running beside the writers, stopped by {@code stop}, that {@linkplain
   * WriterBenchmark.Running#settle() settles} once no event of the outbox of {@code schema} is
   * pending, or after 60 s.
   */
  private static WriterBenchmark.Running running(
      BenchDatabase db, String schema, AutoCloseable stop) {
    return new WriterBenchmark.Running() {
      @Override
      public void settle() throws InterruptedException {
        DSLContext mapped =
            DSL.using(db.dsl().configuration().derive(OutboxSchema.withSchema(null, schema)));
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (mapped.fetchExists(
                OUTBOX_EVENTS,
                OUTBOX_EVENTS.PROCESSED_AT.isNull().and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNull()))
            && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        if (System.nanoTime() >= deadline) {
          log.warn(
              "the relay beside the writers still has events pending after 60 s; the next run"
                  + " starts behind");
        }
      }

      @Override
      public void close() throws Exception {
        stop.close();
      }
    };
  }

  static HikariDataSource pool(String url, int size, String name) {
    return BenchDatabase.pool(url, USER, "", size, name);
  }
}
