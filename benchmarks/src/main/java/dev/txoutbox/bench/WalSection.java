package dev.txoutbox.bench;

import dev.txoutbox.spi.DurationText;
import dev.txoutbox.testing.LogicalServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report's WAL relay section, from {@link WalBenchmark}'s measurements on a {@link
 * LogicalServer} started for it with the shared server's settings. Stateless.
 */
final class WalSection {

  /** Writer counts of the writer runs: one, and the writer section's most. */
  private static final int[] THREADS = {1, 8};

  /** The goals. */
  static final double DRAIN_GOAL = 2.0;

  static final double P99_GOAL_MS = 10.0;
  static final double WRITER_GOAL = 0.95;

  private WalSection() {}

  /**
   * The parts to run, from the system property {@value #PARTS_PROPERTY} (default all: {@code
   * drain,latency,writer}), to run one part alone while working on it.
   */
  static final String PARTS_PROPERTY = "txoutbox.bench.walParts";

  /** The drain's size instead of the profile's, from this system property if set. */
  static final String EVENTS_PROPERTY = "txoutbox.bench.walDrainEvents";

  /**
   * The latency runs to make, of {@code WAL,NOTIFY,POLL} (all by default), to look at one alone.
   */
  static final String MODES_PROPERTY = "txoutbox.bench.walLatencyModes";

  /**
   * The writer runs to make, of {@code NONE,POLLING,WAL,INACTIVE} (all if unset; {@code NONE}, the
   * ratios' reference, always), to look at one alone.
   */
  static final String STATES_PROPERTY = "txoutbox.bench.walWriterStates";

  /**
   * Settings on the path from a commit to the WAL relay, read on both servers and copied from the
   * shared one, besides {@link MachineInfo#SETTINGS}; {@code autovacuum} because the shared server
   * runs without it.
   */
  static final List<String> WAL_PATH_SETTINGS =
      List.of(
          "synchronous_commit",
          "wal_writer_delay",
          "wal_writer_flush_after",
          "commit_delay",
          "commit_siblings",
          "autovacuum");

  /**
   * Settings of the WAL section's server instead of the shared server's, from this system property
   * if set: {@code name=value} pairs separated by commas, such as {@code synchronous_commit=off},
   * to measure a setting's effect; the section names them.
   */
  static final String SETTINGS_PROPERTY = "txoutbox.bench.walSettings";

  static ReportSection run(ReportProfile given, BenchDatabase shared, List<List<String>> summary)
      throws Exception {
    ReportProfile profile =
        given.withWalDrainEvents(Integer.getInteger(EVENTS_PROPERTY, given.walDrainEvents()));
    List<String> parts =
        List.of(System.getProperty(PARTS_PROPERTY, "drain,latency,writer").split(","));
    Map<String, String> sharedSettings = withWalPath(shared, MachineInfo.collect(shared.dsl()));
    Map<String, String> settings = new LinkedHashMap<>(sharedSettings);
    settings.remove("wal_level");
    Map<String, String> overrides = overrides(System.getProperty(SETTINGS_PROPERTY, ""));
    settings.putAll(overrides);
    WalBenchmark.Drain drain = null;
    List<WalBenchmark.Latency> latencies = new ArrayList<>();
    Map<String, List<WriterBenchmark.Run>> writers = null;
    MachineInfo info;
    Map<String, String> own;
    try (LogicalServer server = WalBenchmark.logicalServer(WalBenchmark.quoted(settings));
        BenchDatabase db =
            new BenchDatabase(server.jdbcUrl(WalBenchmark.DATABASE), WalBenchmark.USER, "")) {
      info = MachineInfo.collect(db.dsl());
      own = withWalPath(db, info);
      if (parts.contains("drain")) {
        drain =
            WalBenchmark.drain(
                server,
                db,
                profile.walDrainEvents(),
                profile.walDrainRounds(),
                profile.drainWarmupEvents());
      }
      List<String> modes = latencyModes(System.getProperty(MODES_PROPERTY, "WAL,NOTIFY,POLL"));
      for (WalBenchmark.LatencyMode mode : WalBenchmark.LatencyMode.values()) {
        if (parts.contains("latency") && modes.contains(mode.name())) {
          latencies.add(
              WalBenchmark.latency(
                  server,
                  mode,
                  profile.latencyRate(),
                  profile.latencyWarmup(),
                  profile.latencyLength()));
        }
      }
      if (parts.contains("writer")) {
        writers =
            WalBenchmark.writers(
                server,
                THREADS,
                writerStates(System.getProperty(STATES_PROPERTY, "")),
                profile.writerLength(),
                profile.writerRounds(),
                profile.writerWarmup());
      }
    }
    ReportSection section = new ReportSection("5. WAL relay");
    section.text(serverText(info.postgresVersion(), own, sharedSettings, overrides));
    if (drain != null) {
      drainPart(section, profile, drain, summary);
    }
    if (!latencies.isEmpty()) {
      latencyPart(section, profile, latencies, summary);
    }
    if (writers != null) {
      writerPart(section, profile, writers, summary);
    }
    return section;
  }

  /** The writer runs {@code text} names, {@code NONE} first; every state if it is blank. */
  static List<WalBenchmark.SlotState> writerStates(String text) {
    if (text.isBlank()) {
      return List.of(WalBenchmark.SlotState.values());
    }
    List<WalBenchmark.SlotState> states = new ArrayList<>();
    states.add(WalBenchmark.SlotState.NONE);
    for (String name : text.split(",")) {
      if (name.isBlank()) {
        continue;
      }
      try {
        WalBenchmark.SlotState state = WalBenchmark.SlotState.valueOf(name.trim());
        if (!states.contains(state)) {
          states.add(state);
        }
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            STATES_PROPERTY
                + ": unknown writer run '"
                + name.trim()
                + "'; known: "
                + List.of(WalBenchmark.SlotState.values()),
            e);
      }
    }
    return states;
  }

  /**
   * The latency runs {@code text} names, comma-separated.
   *
   * @throws IllegalArgumentException naming an unknown run, or if none is named
   */
  static List<String> latencyModes(String text) {
    List<String> known =
        java.util.Arrays.stream(WalBenchmark.LatencyMode.values()).map(Enum::name).toList();
    List<String> modes =
        java.util.Arrays.stream(text.split(","))
            .map(String::trim)
            .filter(m -> !m.isEmpty())
            .toList();
    for (String m : modes) {
      if (!known.contains(m)) {
        throw new IllegalArgumentException(
            MODES_PROPERTY + ": unknown latency run '" + m + "'; known: " + known);
      }
    }
    if (modes.isEmpty()) {
      throw new IllegalArgumentException(MODES_PROPERTY + " names no latency run; known: " + known);
    }
    return modes;
  }

  /** The settings {@code info} read, and {@link #WAL_PATH_SETTINGS}, on {@code db}. */
  private static Map<String, String> withWalPath(BenchDatabase db, MachineInfo info) {
    Map<String, String> out = new LinkedHashMap<>(info.postgresSettings());
    for (String name : WAL_PATH_SETTINGS) {
      out.putIfAbsent(name, MachineInfo.setting(db.dsl(), name));
    }
    return out;
  }

  /**
   * {@code name=value,name=value} as a map in order; blank is none.
   *
   * @throws IllegalArgumentException if a pair has no {@code =} or an empty name or value
   */
  static Map<String, String> overrides(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : text.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq <= 0 || eq == pair.length() - 1) {
        throw new IllegalArgumentException(
            SETTINGS_PROPERTY + " must be name=value pairs but was '" + text + "'");
      }
      out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return out;
  }

  private static String serverText(
      String version,
      Map<String, String> own,
      Map<String, String> shared,
      Map<String, String> overrides) {
    StringBuilder out =
        new StringBuilder(
            "The WAL relay needs `wal_level=logical`, which the shared server has not (and is never"
                + " given): this section runs on a PostgreSQL server of its own, a cluster made by"
                + " the same Debian binaries' `initdb` in a temporary directory on the same disk,"
                + " started on a free port of 127.0.0.1 and deleted at the end, with the shared"
                + " server's settings named above and those below, and `max_replication_slots=8`,"
                + " `max_wal_senders=8`. PostgreSQL "
                + version
                + ":");
    own.forEach((k, v) -> out.append(" `").append(k).append('=').append(v).append('`'));
    List<String> differ = new ArrayList<>();
    own.forEach(
        (k, v) -> {
          if (!v.equals(shared.get(k))) {
            differ.add("`" + k + "` " + v + " here, " + shared.get(k) + " on the shared server");
          }
        });
    out.append(". Differences: ")
        .append(differ.isEmpty() ? "none" : String.join("; ", differ))
        .append(
            ". Other settings are `initdb`'s defaults, not Debian's `postgresql.conf`. Both the WAL"
                + " relay and its polling references run on this server, so every ratio here is"
                + " like for like; its absolute figures are not those of the sections above.");
    if (!overrides.isEmpty()) {
      out.append(" **This run sets ");
      overrides.forEach((k, v) -> out.append('`').append(k).append('=').append(v).append("` "));
      out.append("by -D").append(SETTINGS_PROPERTY).append(", not the shared server's values.**");
    }
    out.append(
        " On the WAL path: the WAL sender decodes only WAL that is flushed. With"
            + " `synchronous_commit=on` a commit returns after its own flush, which wakes the WAL"
            + " sender, so the WAL relay can read a commit as soon as its writer has returned;"
            + " with `off` the commit's WAL waits for the WAL writer (every `wal_writer_delay`, "
            + own.get("wal_writer_delay")
            + " here, or sooner as pages fill), a delay the polling relay, which sees a commit"
            + " once it is visible, does not pay. This run: `synchronous_commit="
            + own.get("synchronous_commit")
            + "`.");
    return out.toString();
  }

  private static void drainPart(
      ReportSection section,
      ReportProfile profile,
      WalBenchmark.Drain drain,
      List<List<String>> summary) {
    section.text(
        String.format(
            "**Drain.** %,d pending events seeded as the drain section seeds them (10 statements"
                + " of up to 100,000 rows in auto-commit, then `VACUUM ANALYZE`), with the slot made"
                + " before the seed so that the WAL holds them; the WAL relay (batch %d, a"
                + " no-op publisher; one batch at a time, which keeps commit order, and 2 at a"
                + " time, `concurrentBatches(2)`, marking rows processed or deleting them) is timed"
                + " from its `start()` until every event is recorded, as the polling relay is in"
                + " the drain section; against the polling relay's best shapes there, %s and %s,"
                + " on the same seed in the same server. The last WAL row is no relay: a stream"
                + " that reads the slot, counts the Insert messages without decoding them and"
                + " confirms each commit, recording nothing in the database, timed from opening"
                + " the stream to the last Insert read. No WAL relay can drain faster than it,"
                + " since every WAL relay reads that stream and then also records each event's"
                + " outcome. Median of %d interleaved round%s after a warm-up of all (%,d events)."
                + " WAL held: the slot's lag (`pg_wal_lsn_diff` of the current position and"
                + " `confirmed_flush_lsn`) after the seed's inserts, per million events. The"
                + " PostgreSQL CPU includes the WAL sender's decoding.",
            profile.walDrainEvents(),
            WalBenchmark.WAL_BATCH,
            WalBenchmark.POLLING_BEST.shape(),
            WalBenchmark.POLLING_DELETE.shape(),
            profile.walDrainRounds(),
            profile.walDrainRounds() == 1 ? "" : "s",
            profile.drainWarmupEvents()));
    if (drain.failure() != null) {
      section.text("**The WAL drain did not finish**: " + drain.failure() + ".");
      summary.add(List.of("drain from the WAL", "did not finish", drain.failure(), ""));
    }
    DrainBenchmark.Case pollingBest = fastest(drain.polling(), c -> true);
    WalBenchmark.WalShape walBest = fastest(drain.wal(), WalBenchmark.WalShape::relay);
    if (pollingBest == null || walBest == null) {
      return;
    }
    double polling =
        Figures.median(drain.polling().get(pollingBest), DrainBenchmark.Measurement::rate);
    double wal = Figures.median(drain.wal().get(walBest), DrainBenchmark.Measurement::rate);
    List<DrainBenchmark.Measurement> read = drain.wal().get(WalBenchmark.WalShape.READ);
    double bound =
        read == null ? Double.NaN : Figures.median(read, DrainBenchmark.Measurement::rate);
    String held =
        drain.walBytesPerEvent().isEmpty()
            ? ""
            : Figures.one(Figures.median(drain.walBytesPerEvent(), b -> b) * 1_000_000 / (1 << 20));
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<WalBenchmark.WalShape, List<DrainBenchmark.Measurement>> e :
        drain.wal().entrySet()) {
      double rate = Figures.median(e.getValue(), DrainBenchmark.Measurement::rate);
      rows.add(
          drainRow(
              e.getKey().what(),
              e.getKey().shape(),
              e.getValue(),
              Figures.ratio(rate, polling),
              e.getKey() == WalBenchmark.WalShape.ONE ? held : ""));
    }
    for (Map.Entry<DrainBenchmark.Case, List<DrainBenchmark.Measurement>> e :
        drain.polling().entrySet()) {
      rows.add(
          drainRow(
              "polling relay (txoutbox, no-op publisher)",
              e.getKey().shape(),
              e.getValue(),
              e.getKey().equals(pollingBest)
                  ? ""
                  : Figures.ratio(
                      Figures.median(e.getValue(), DrainBenchmark.Measurement::rate), polling),
              ""));
    }
    section.table(
        new ReportSection.Table(
            List.of(
                "relay",
                "shape",
                "events/s (median)",
                "min–max",
                "vs polling relay's best",
                "JVM CPU µs/event",
                "PostgreSQL CPU µs/event",
                "WAL held, MB per million events"),
            rows));
    section.text(
        goal(
            "drain ≥ " + Figures.one(DRAIN_GOAL) + "× the polling relay's best",
            wal / polling >= DRAIN_GOAL,
            Figures.ratio(wal, polling)
                + ", the WAL relay's fastest shape, "
                + walBest.shape()
                + ", against the polling relay's "
                + pollingBest.shape()));
    if (read != null) {
      section.text(
          String.format(
              "Bound: the slot read alone, recording nothing, drained at %s events/s, %s of the"
                  + " polling relay's best; the goal asks a WAL relay that also records every"
                  + " outcome for %s. %s",
              Figures.rate(bound),
              Figures.ratio(bound, polling),
              Figures.one(DRAIN_GOAL) + "×",
              bound / polling < DRAIN_GOAL
                  ? "On this machine the goal is out of reach of any WAL relay, whatever its"
                      + " code: the WAL sender's decoding and sending alone take longer."
                  : "The bound leaves room for the goal on this machine."));
    }
    summary.add(
        List.of(
            String.format(
                "drain from the WAL, %,d events, no-op publisher, %s",
                profile.walDrainEvents(), walBest.shape()),
            Figures.rate(wal) + " events/s",
            Figures.ratio(wal, polling)
                + " of the polling relay "
                + pollingBest.shape()
                + " ("
                + Figures.rate(polling)
                + "/s), own logical server",
            Figures.one(
                    Figures.median(drain.wal().get(walBest), DrainBenchmark.Measurement::jvmMicros))
                + " / "
                + Figures.one(
                    Figures.median(
                        drain.wal().get(walBest), DrainBenchmark.Measurement::postgresMicros))));
    if (read != null) {
      summary.add(
          List.of(
              String.format(
                  "drain from the WAL, %,d events, the slot read alone, nothing recorded (the"
                      + " bound of any WAL relay)",
                  profile.walDrainEvents()),
              Figures.rate(bound) + " events/s",
              Figures.ratio(bound, polling)
                  + " of the polling relay "
                  + pollingBest.shape()
                  + ", own logical server",
              Figures.one(Figures.median(read, DrainBenchmark.Measurement::jvmMicros))
                  + " / "
                  + Figures.one(Figures.median(read, DrainBenchmark.Measurement::postgresMicros))));
    }
  }

  /** The key of {@code runs} whose median rate is highest among those {@code eligible}, or null. */
  private static <K> K fastest(
      Map<K, List<DrainBenchmark.Measurement>> runs, java.util.function.Predicate<K> eligible) {
    return runs.entrySet().stream()
        .filter(e -> eligible.test(e.getKey()))
        .max(
            java.util.Comparator.comparingDouble(
                e -> Figures.median(e.getValue(), DrainBenchmark.Measurement::rate)))
        .map(Map.Entry::getKey)
        .orElse(null);
  }

  private static List<String> drainRow(
      String what, String shape, List<DrainBenchmark.Measurement> runs, String ratio, String held) {
    return List.of(
        what,
        shape,
        Figures.rate(Figures.median(runs, DrainBenchmark.Measurement::rate)),
        Figures.rate(runs.stream().mapToDouble(DrainBenchmark.Measurement::rate).min().orElse(0))
            + "–"
            + Figures.rate(
                runs.stream().mapToDouble(DrainBenchmark.Measurement::rate).max().orElse(0)),
        ratio,
        Figures.one(Figures.median(runs, DrainBenchmark.Measurement::jvmMicros)),
        Figures.one(Figures.median(runs, DrainBenchmark.Measurement::postgresMicros)),
        held);
  }

  private static void latencyPart(
      ReportSection section,
      ReportProfile profile,
      List<WalBenchmark.Latency> results,
      List<List<String>> summary) {
    section.text(
        String.format(
            "**Latency, writers in another process.** A child JVM (this benchmark's class path)"
                + " runs %d writer threads committing one event per transaction at %,d events/s in"
                + " total for %d s after a %d s warm-up, and notes each event's wall-clock time"
                + " (`Instant.now()`, microseconds) right after its commit returned; this process's"
                + " relay publishes to a no-op publisher that notes the wall-clock time it first"
                + " sees each event. Before each of the three runs, whichever relay it measures, the"
                + " outbox is made anew and given %,d processed events, then vacuumed and analyzed,"
                + " as a table in service would be (the WAL relay no longer needs the statistics:"
                + " its statements by id probe the primary key on a table never analyzed too)."
                + " Same machine, same clock; latency = seen − committed, an"
                + " event seen before its writer read the clock counts as 0. The WAL relay (batch"
                + " 100) runs alone, without the polling sweeper; the polling relay is the latency"
                + " section's (1 × 100, adaptive poll 25 ms – 1 s), with the opt-in NOTIFY trigger"
                + " and its LISTEN connection, or alone. JVM CPU: the relay's process only;"
                + " PostgreSQL CPU: every backend of the database, the writers' included; both"
                + " from the counted part's start to the last event seen, not over the wait for"
                + " events never seen.",
            LatencyBenchmark.WRITERS,
            profile.latencyRate(),
            profile.latencyLength().toSeconds(),
            profile.latencyWarmup().toSeconds(),
            WalBenchmark.HISTORY));
    section.text(
        "**Unpublished** counts events committed in the counted part and not seen within 30 s after"
            + " the writers stopped; _still pending_, those of them whose row is still unprocessed"
            + " in the table then; _skipped_, the WAL relay's `skippedEvents()`: events it read"
            + " from the WAL but did not find pending when it claimed them (warm-up included). With"
            + " no polling relay beside it and no delayed events, every skip is a miss.");
    WalBenchmark.Latency wal =
        results.stream()
            .filter(r -> r.mode() == WalBenchmark.LatencyMode.WAL)
            .findFirst()
            .orElse(null);
    if (wal != null && wal.walSkipped() > 0) {
      section.text(
          String.format(
              "This run's WAL relay skipped %d; its slot existed %,d ms before the first counted"
                  + " commit (`start()` creates it before the writers' process starts), so the"
                  + " misses are not a start-up race. They are a gap in the relay: the WAL sender"
                  + " decodes a commit once its WAL is flushed, and the committing backend makes it"
                  + " visible to other sessions only afterwards (after the wait for synchronous"
                  + " standbys, if any); a claim in between does not see the row, and the relay"
                  + " confirms the slot past it. A loaded machine widens the gap. In service the"
                  + " polling sweeper beside the WAL relay publishes such events, late by its poll"
                  + " interval.",
              wal.walSkipped(), wal.slotLeadMillis()));
    }
    List<List<String>> rows = new ArrayList<>();
    Map<String, List<Double>> chart = new LinkedHashMap<>();
    chart.put("p50", new ArrayList<>());
    chart.put("p99", new ArrayList<>());
    double walP99 = Double.NaN;
    for (WalBenchmark.Latency r : results) {
      long[] sorted = r.sortedNanos();
      double p50 = Figures.percentile(sorted, 0.50) / 1e6;
      double p99 = Figures.percentile(sorted, 0.99) / 1e6;
      if (r.mode() == WalBenchmark.LatencyMode.WAL) {
        walP99 = p99;
      }
      chart.get("p50").add(p50);
      chart.get("p99").add(p99);
      long events = Math.max(1, sorted.length);
      rows.add(
          List.of(
              r.mode().label,
              Figures.rate(r.steady().committedAt().size() / r.steady().seconds()),
              Figures.two(p50),
              Figures.two(Figures.percentile(sorted, 0.95) / 1e6),
              Figures.two(p99),
              Figures.two(sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6),
              Long.toString(r.unpublished()),
              Long.toString(r.stillPending()),
              r.walSkipped() < 0 ? "" : Long.toString(r.walSkipped()),
              Long.toString(r.steady().failed()),
              Figures.one(r.cpu().jvmNanos() / 1e3 / events),
              Figures.one(r.cpu().postgresNanos() / 1e3 / events)));
      summary.add(
          List.of(
              String.format(
                  "commit → publish at %,d events/s, writers in another process, %s",
                  profile.latencyRate(), r.mode().label),
              "p50 " + Figures.one(p50) + " ms, p99 " + Figures.one(p99) + " ms",
              r.mode() == WalBenchmark.LatencyMode.WAL
                  ? ""
                  : "WAL relay's p99 " + Figures.ratio(walP99, p99) + " of this",
              Figures.one(r.cpu().jvmNanos() / 1e3 / events)
                  + " / "
                  + Figures.one(r.cpu().postgresNanos() / 1e3 / events)));
    }
    section.table(
        new ReportSection.Table(
            List.of(
                "relay",
                "events/s written",
                "p50 ms",
                "p95 ms",
                "p99 ms",
                "max ms",
                "unpublished",
                "still pending",
                "skipped",
                "failed writes",
                "JVM CPU µs/event",
                "PostgreSQL CPU µs/event"),
            rows));
    section.chart(
        new ReportSection.Chart(
            "wal-latency.png",
            "Commit → publish, writers in another process, " + profile.latencyRate() + " events/s",
            "milliseconds (log scale)",
            results.stream().map(r -> r.mode().label).toList(),
            chart,
            false,
            true));
    section.text(
        goal(
            "WAL relay's p99 ≤ " + Figures.one(P99_GOAL_MS) + " ms",
            walP99 <= P99_GOAL_MS,
            Figures.two(walP99) + " ms"));
  }

  private static void writerPart(
      ReportSection section,
      ReportProfile profile,
      Map<String, List<WriterBenchmark.Run>> runs,
      List<List<String>> summary) {
    section.text(
        String.format(
            "**Writers with the slot active.** The writer section's `outbox.record` case (a"
                + " business row and one event per transaction, writers as fast as they can) on"
                + " this server, beside: nothing; the polling relay (%s) consuming; the WAL relay"
                + " (batch %d, minimum batch interval %s) consuming; the slot read alone, by a stream"
                + " that confirms each commit and records nothing (as in the drain's last row: the"
                + " WAL sender's decoding and sending, and no relay's work); a slot nobody reads,"
                + " retaining WAL. %d s per run in %d"
                + " interleaved round%s (the states in a rotating order, after one uncounted run), each after a %d s warm-up; before each run the relay consuming has"
                + " no event left pending (at most 60 s), then the tables are truncated, so that no"
                + " relay starts a run waiting for rows truncated under it (the WAL relay would"
                + " wait its visibility wait for them). The relays publish to a no-op"
                + " publisher and run in this JVM on the benchmark database's pool, so their CPU"
                + " counts in the JVM and PostgreSQL figures. On a machine of few cores a relay's"
                + " own work competes with the writers: the inactive slot's row shows what the slot"
                + " alone costs them, the polling relay's what any relay consuming costs.",
            WalBenchmark.POLLING_BEST.shape(),
            WalBenchmark.WAL_BATCH,
            DurationText.of(WalBenchmark.minBatchInterval()),
            profile.writerLength().toSeconds(),
            profile.writerRounds(),
            profile.writerRounds() == 1 ? "" : "s",
            profile.writerWarmup().toSeconds()));
    List<List<String>> rows = new ArrayList<>();
    boolean met = true;
    StringBuilder ratios = new StringBuilder();
    boolean reachable = true; // by the slot read alone
    StringBuilder bound = new StringBuilder();
    for (int threads : THREADS) {
      double none = rate(runs.get(WalBenchmark.SlotState.NONE.name() + "/" + threads));
      for (WalBenchmark.SlotState state : WalBenchmark.SlotState.values()) {
        List<WriterBenchmark.Run> rs = runs.get(state.name() + "/" + threads);
        if (rs == null) {
          continue; // not run (STATES_PROPERTY)
        }
        double rate = rate(rs);
        if (state == WalBenchmark.SlotState.READ) {
          reachable &= rate / none >= WRITER_GOAL;
          bound.append(bound.length() == 0 ? "" : ", ").append(writers(threads)).append(' ');
          bound.append(Figures.ratio(rate, none));
        }
        if (state == WalBenchmark.SlotState.WAL) {
          met &= rate / none >= WRITER_GOAL;
          ratios
              .append(ratios.length() == 0 ? "" : ", ")
              .append(writers(threads))
              .append(' ')
              .append(Figures.ratio(rate, none));
          summary.add(
              List.of(
                  "writer, "
                      + threads
                      + " thread"
                      + (threads == 1 ? "" : "s")
                      + ", WAL relay consuming",
                  Figures.rate(rate) + " tx/s",
                  Figures.ratio(rate, none)
                      + " of no slot ("
                      + Figures.rate(none)
                      + " tx/s), own logical server",
                  Figures.one(Figures.median(rs, WriterBenchmark::jvmMicros))
                      + " / "
                      + Figures.one(Figures.median(rs, WriterBenchmark::pgMicros))
                      + " per tx"));
        }
        rows.add(
            List.of(
                threads + " × " + state.label,
                Figures.rate(rate),
                state == WalBenchmark.SlotState.NONE ? "" : Figures.ratio(rate, none),
                Figures.two(WriterBenchmark.millis(rs, 0.50)),
                Figures.two(WriterBenchmark.millis(rs, 0.99)),
                Figures.one(Figures.median(rs, WriterBenchmark::jvmMicros)),
                Figures.one(Figures.median(rs, WriterBenchmark::pgMicros)),
                Long.toString(rs.stream().mapToLong(WriterBenchmark.Run::failed).sum())));
      }
    }
    section.table(
        new ReportSection.Table(
            List.of(
                "writers × beside",
                "tx/s (median)",
                "vs no slot",
                "p50 ms",
                "p99 ms",
                "JVM CPU µs/tx",
                "PostgreSQL CPU µs/tx",
                "failed tx"),
            rows));
    section.text(
        goal("writers with the WAL relay consuming within 5% of no slot", met, ratios.toString()));
    if (bound.length() > 0) {
      section.text(
          "Bound: with the slot read alone, recording nothing, the writers ran at "
              + bound
              + " of no slot. "
              + (reachable
                  ? "The bound leaves room for the goal on this machine."
                  : "Where that is below "
                      + Figures.ratio(WRITER_GOAL, 1)
                      + " the goal is out of reach of any WAL relay on this machine, whatever its"
                      + " code: the WAL sender's work for each commit alone costs the writers"
                      + " more."));
    }
  }

  private static String goal(String what, boolean met, String measured) {
    return "Goal: "
        + what
        + " — "
        + (met ? "**met**" : "**not met**")
        + " in this run ("
        + measured
        + ").";
  }

  /** {@code 1 writer}, {@code 8 writers}. */
  private static String writers(int threads) {
    return threads + " writer" + (threads == 1 ? "" : "s");
  }

  private static double rate(List<WriterBenchmark.Run> runs) {
    return Figures.median(runs, r -> r.commits() / r.seconds());
  }
}
