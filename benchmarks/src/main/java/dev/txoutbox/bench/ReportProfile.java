package dev.txoutbox.bench;

import java.time.Duration;

/**
 * The sizes of one report run ({@code slowEvents}: the drain of the per-row relay and of the broker
 * targets, which run at a fraction of the others' rates; {@code walDrainEvents}: the WAL section's
 * backlog, the million in the full run): {@link #FULL} by default, {@link #QUICK} for a
 * smoke run of a few minutes whose figures mean little.
 */
record ReportProfile(
    String name,
    int drainEvents,
    int slowEvents,
    int drainRounds,
    int drainWarmupEvents,
    int[][] drainShapes,
    Duration writerLength,
    int writerRounds,
    Duration writerWarmup,
    int latencyRate,
    Duration latencyWarmup,
    Duration latencyLength,
    int idleSamples,
    Duration quiet,
    int[] backlogSizes,
    int history,
    int delayed,
    int claimCycles,
    int idlePolls,
    int walDrainEvents,
    int walDrainRounds) {

  private static final int[][] SHAPES = {
    {1, 100}, {2, 100}, {4, 100}, {1, 500}, {2, 500}, {4, 500}
  };

  /** About 45 minutes on a quiet 2-core machine (43 on 2026-12-07). */
  static final ReportProfile FULL =
      new ReportProfile(
          "full",
          100_000,
          40_000,
          2,
          100_000, // the relay's per-batch code compiled: DrainBenchmark.WARMUP_BATCH
          SHAPES,
          Duration.ofSeconds(10),
          2,
          Duration.ofSeconds(5),
          1_000,
          Duration.ofSeconds(5),
          Duration.ofSeconds(60),
          2,
          Duration.ofSeconds(20),
          new int[] {10_000, 100_000, 1_000_000},
          5_000_000,
          1_000_000,
          40,
          2_000,
          1_000_000,
          2);

  /** A smoke run of the same code paths in about 4 minutes. */
  static final ReportProfile QUICK =
      new ReportProfile(
          "quick",
          10_000,
          5_000,
          1,
          1_000,
          SHAPES,
          Duration.ofSeconds(2),
          1,
          Duration.ofSeconds(1),
          1_000,
          Duration.ofSeconds(2),
          Duration.ofSeconds(10),
          1,
          Duration.ofSeconds(3),
          new int[] {10_000, 50_000},
          200_000,
          100_000,
          20,
          200,
          50_000,
          1);

  /** This profile with a WAL drain of {@code events}. */
  ReportProfile withWalDrainEvents(int events) {
    return new ReportProfile(
        name,
        drainEvents,
        slowEvents,
        drainRounds,
        drainWarmupEvents,
        drainShapes,
        writerLength,
        writerRounds,
        writerWarmup,
        latencyRate,
        latencyWarmup,
        latencyLength,
        idleSamples,
        quiet,
        backlogSizes,
        history,
        delayed,
        claimCycles,
        idlePolls,
        events,
        walDrainRounds);
  }

  /** The largest pending backlog, also the one measured with the processed history. */
  int largestBacklog() {
    return backlogSizes[backlogSizes.length - 1];
  }
}
