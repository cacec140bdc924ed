package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Ordering;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The report's backlog section: one relay cycle's time as the backlog grows ({@link
 * ClaimBenchmark}'s cells), and the cost of an idle poll with no events and with many delayed ones.
 * Stateless.
 */
final class BacklogSection {

  private static final Logger log = LoggerFactory.getLogger(BacklogSection.class);
  private static final int AGGREGATES = 1_000;
  private static final int BATCH = 100;

  private BacklogSection() {}

  /** A backlog: pending events, processed rows of the history, delayed events. */
  private record Backlog(int pending, int processed) {
    String label() {
      return String.format("%,d pending", pending)
          + (processed == 0 ? "" : String.format(" + %,d processed", processed));
    }
  }

  /** One idle poll figure: the relay's {@code runOnce()} on a table with nothing due. */
  private record IdlePoll(
      String label, double medianMillis, double jvmMicros, double pgMicros, String explain) {}

  static ReportSection run(ReportProfile profile, List<List<String>> summary) throws Exception {
    List<Backlog> backlogs = new ArrayList<>();
    for (int size : profile.backlogSizes()) {
      backlogs.add(new Backlog(size, 0));
    }
    backlogs.add(new Backlog(profile.largestBacklog(), profile.history()));
    ReportSection section = new ReportSection("4. Backlog scale");
    section.text(
        String.format(
            "One relay cycle (`runOnce()`: claim %d, no-op publish, mark processed, commit) on a"
                + " fresh table per backlog (%,d aggregates, `ANALYZE`d; the processed history is"
                + " inserted first, as older rows), unordered and ordered per aggregate"
                + " interleaved in blocks of 5 cycles, %d cycles each. CPU per event is the cycle's"
                + " CPU divided by the %d events it completes. Reference: the smallest backlog.",
            BATCH, AGGREGATES, profile.claimCycles(), BATCH));
    try (HikariDataSource pool =
        BenchDatabase.pool(BenchDatabase.url("txoutbox_bench"), 4, "backlog-bench")) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      CpuMeter meter = new CpuMeter(dsl);
      // Warm the JIT up on a throwaway table first: its compilations would count as CPU.
      ClaimBenchmark.recreate(pool, dsl);
      ClaimBenchmark.seed(dsl, 25_000, 10);
      ClaimBenchmark.measure(pool, meter, 60);
      List<List<String>> rows = new ArrayList<>();
      Map<String, List<Double>> chart = new LinkedHashMap<>();
      chart.put("unordered p50", new ArrayList<>());
      chart.put("ordered p50", new ArrayList<>());
      Map<Ordering, Double> reference = new LinkedHashMap<>();
      for (Backlog b : backlogs) {
        ClaimBenchmark.recreate(pool, dsl);
        long seedStart = System.nanoTime();
        if (b.processed() > 0) {
          ClaimBenchmark.seed(dsl, b.processed(), AGGREGATES, DSL.currentOffsetDateTime(), null);
        }
        ClaimBenchmark.seed(dsl, b.pending(), AGGREGATES);
        ClaimBenchmark.execute(pool, "VACUUM ANALYZE " + ClaimBenchmark.SCHEMA + ".outbox_events");
        log.info("{} seeded in {} s", b.label(), (System.nanoTime() - seedStart) / 1_000_000_000);
        Map<Ordering, ClaimBenchmark.Cell> cells =
            ClaimBenchmark.measure(pool, meter, profile.claimCycles());
        for (Ordering ordering : List.of(Ordering.NONE, Ordering.PER_AGGREGATE)) {
          ClaimBenchmark.Cell cell = cells.get(ordering);
          double p50 = ClaimBenchmark.percentile(cell.millis(), 50);
          reference.putIfAbsent(ordering, p50);
          chart.get(ordering == Ordering.NONE ? "unordered p50" : "ordered p50").add(p50);
          rows.add(
              List.of(
                  b.label(),
                  ordering == Ordering.NONE ? "unordered" : "ordered per aggregate",
                  Figures.rate(BATCH / (p50 / 1e3)),
                  Figures.two(p50),
                  Figures.two(ClaimBenchmark.percentile(cell.millis(), 90)),
                  Figures.ratio(p50, reference.get(ordering)),
                  Figures.one(cell.cpuMillis(true, profile.claimCycles()) * 1e3 / BATCH),
                  Figures.one(cell.cpuMillis(false, profile.claimCycles()) * 1e3 / BATCH)));
          if (b.processed() > 0) {
            summary.add(
                List.of(
                    "one cycle of 100, " + rowsLabel(ordering) + ", " + b.label(),
                    Figures.two(p50) + " ms (p50)",
                    Figures.ratio(p50, reference.get(ordering))
                        + " of the "
                        + backlogs.get(0).label()
                        + " cycle",
                    Figures.one(cell.cpuMillis(true, profile.claimCycles()) * 1e3 / BATCH)
                        + " / "
                        + Figures.one(cell.cpuMillis(false, profile.claimCycles()) * 1e3 / BATCH)));
          }
        }
      }
      section.table(
          new ReportSection.Table(
              List.of(
                  "backlog",
                  "claim",
                  "events/s in one cycle",
                  "cycle p50 ms",
                  "cycle p90 ms",
                  "p50 vs smallest backlog",
                  "JVM CPU µs/event",
                  "PostgreSQL CPU µs/event"),
              rows));
      section.chart(
          new ReportSection.Chart(
              "backlog-cycle.png",
              "One cycle of " + BATCH + " as the backlog grows",
              "milliseconds (p50)",
              backlogs.stream().map(Backlog::label).toList(),
              chart,
              false,
              false));
      idle(profile, pool, dsl, meter, section, summary);
    }
    return section;
  }

  private static String rowsLabel(Ordering ordering) {
    return ordering == Ordering.NONE ? "unordered" : "ordered";
  }

  private static void idle(
      ReportProfile profile,
      HikariDataSource pool,
      DSLContext dsl,
      CpuMeter meter,
      ReportSection section,
      List<List<String>> summary)
      throws Exception {
    ClaimBenchmark.recreate(pool, dsl);
    Field<OffsetDateTime> weekAhead = DSL.val(OffsetDateTime.now().plusDays(7));
    ClaimBenchmark.seed(dsl, profile.delayed(), AGGREGATES, null, weekAhead);
    ClaimBenchmark.execute(pool, "VACUUM ANALYZE " + ClaimBenchmark.SCHEMA + ".outbox_events");
    dsl.dropSchemaIfExists(EMPTY_SCHEMA).cascade().execute();
    OutboxSchema.migrate(pool, EMPTY_SCHEMA);
    ClaimBenchmark.execute(pool, "VACUUM ANALYZE " + EMPTY_SCHEMA + ".outbox_events");
    List<IdlePoll> polls =
        polls(
            pool,
            meter,
            profile.idlePolls(),
            new String[] {
              "empty outbox", String.format("%,d events delayed 7 days", profile.delayed())
            },
            new String[] {EMPTY_SCHEMA, ClaimBenchmark.SCHEMA});
    section.text(
        String.format(
            "Idle poll: the relay's `runOnce()` (unordered, batch %d) with nothing due, median of"
                + " %d calls after 10 to warm up, the two outboxes (two schemas) interleaved in"
                + " blocks of %d calls; CPU per poll of this JVM and of the PostgreSQL"
                + " backends; and `EXPLAIN (ANALYZE, BUFFERS)` of the relay's claim statement (the"
                + " plain JDBC relay's copy of it) in a rolled-back transaction. Reference: the"
                + " empty outbox.",
            BATCH, profile.idlePolls(), POLL_BLOCK));
    List<List<String>> rows = new ArrayList<>();
    IdlePoll empty = polls.get(0);
    for (IdlePoll p : polls) {
      rows.add(
          List.of(
              p.label(),
              Figures.two(p.medianMillis()),
              p == empty ? "" : Figures.ratio(p.medianMillis(), empty.medianMillis()),
              Figures.one(p.jvmMicros()),
              Figures.one(p.pgMicros()),
              p.explain()));
    }
    section.table(
        new ReportSection.Table(
            List.of(
                "outbox",
                "idle poll p50 ms",
                "vs empty",
                "JVM CPU µs/poll",
                "PostgreSQL CPU µs/poll",
                "claim statement: EXPLAIN (ANALYZE, BUFFERS)"),
            rows));
    IdlePoll delayed = polls.get(1);
    summary.add(
        List.of(
            "idle poll, " + delayed.label(),
            Figures.two(delayed.medianMillis()) + " ms",
            Figures.ratio(delayed.medianMillis(), empty.medianMillis())
                + " of an empty outbox's ("
                + Figures.two(empty.medianMillis())
                + " ms)",
            Figures.one(delayed.jvmMicros())
                + " / "
                + Figures.one(delayed.pgMicros())
                + " per poll"));
  }

  /** Idle polls of the outboxes in {@code schemas}, interleaved in blocks. */
  private static List<IdlePoll> polls(
      HikariDataSource pool, CpuMeter meter, int polls, String[] labels, String[] schemas)
      throws Exception {
    List<OutboxRelay> relays = new ArrayList<>();
    for (String schema : schemas) {
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(pool)
              .schema(schema)
              .publisher(new NoopTarget().publisher())
              .config(RelayConfig.builder().name("idle-" + schema).batchSize(BATCH).build())
              .build();
      for (int i = 0; i < 10; i++) {
        relay.runOnce();
      }
      relays.add(relay);
    }
    double[][] millis = new double[schemas.length][polls];
    CpuMeter.Sample[] cpu = new CpuMeter.Sample[schemas.length];
    java.util.Arrays.fill(cpu, new CpuMeter.Sample(0, 0));
    for (int from = 0; from < polls; from += POLL_BLOCK) {
      for (int r = 0; r < relays.size(); r++) {
        CpuMeter.Sample before = meter.sample();
        for (int i = from; i < Math.min(polls, from + POLL_BLOCK); i++) {
          long start = System.nanoTime();
          int claimed = relays.get(r).runOnce();
          millis[r][i] = (System.nanoTime() - start) / 1e6;
          if (claimed != 0) {
            throw new IllegalStateException(
                labels[r] + ": an idle poll claimed " + claimed + " events");
          }
        }
        cpu[r] = cpu[r].plus(meter.sample().minus(before));
      }
    }
    List<IdlePoll> result = new ArrayList<>();
    for (int r = 0; r < relays.size(); r++) {
      result.add(
          new IdlePoll(
              labels[r],
              Figures.median(millis[r]),
              cpu[r].jvmNanos() / 1e3 / polls,
              cpu[r].postgresNanos() / 1e3 / polls,
              explain(pool, schemas[r])));
    }
    return result;
  }

  private static final String EMPTY_SCHEMA = "idle_empty_bench";
  private static final int POLL_BLOCK = 100;

  private static final Pattern PLANNING = Pattern.compile("Planning Time: ([0-9.]+) ms");
  private static final Pattern EXECUTION = Pattern.compile("Execution Time: ([0-9.]+) ms");
  private static final Pattern BUFFERS = Pattern.compile("Buffers: (.*)");

  /**
   * Planning and execution time and the first buffers line (the top node's, or the planner's) of
   * the claim statement, as EXPLAIN reports them.
   */
  private static String explain(HikariDataSource pool, String schema) throws SQLException {
    // EXPLAIN (ANALYZE, BUFFERS) takes options jOOQ's explain() does not render.
    String sql =
        "EXPLAIN (ANALYZE, BUFFERS) " + JdbcBaselineRelay.claimSql(schema).replace("?", "" + BATCH);
    StringBuilder plan = new StringBuilder();
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(sql)) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
    log.debug("idle claim plan:\n{}", plan);
    Matcher planning = PLANNING.matcher(plan);
    Matcher time = EXECUTION.matcher(plan);
    Matcher buffers = BUFFERS.matcher(plan);
    return "planning "
        + (planning.find() ? planning.group(1) + " ms" : "—")
        + ", execution "
        + (time.find() ? time.group(1) + " ms" : "—")
        + (buffers.find() ? ", " + buffers.group(1).trim() : ", no buffers");
  }
}
