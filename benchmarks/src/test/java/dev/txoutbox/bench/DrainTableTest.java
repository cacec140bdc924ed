package dev.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DrainTableTest {

  private static final CompletionMode MARK = CompletionMode.MARK_PROCESSED;

  @Test
  void eachRowIsComparedWithItsReferenceOfTheSameRunAndShape() {
    DrainBenchmark.Case jdbc = new DrainBenchmark.Case("jdbc", 2, 500, MARK);
    DrainBenchmark.Case ours = new DrainBenchmark.Case("noop", 2, 500, MARK);
    DrainBenchmark.Case ordered =
        new DrainBenchmark.Case("noop", 2, 500, MARK, Ordering.PER_AGGREGATE, 10);
    DrainBenchmark.Case kafka = new DrainBenchmark.Case("kafka", 2, 500, MARK);
    DrainBenchmark.Case deleting = new DrainBenchmark.Case("noop", 2, 500, CompletionMode.DELETE);
    Map<DrainBenchmark.Case, List<DrainBenchmark.Measurement>> runs = new LinkedHashMap<>();
    runs.put(jdbc, List.of(m(40_000), m(60_000))); // median 50,000
    runs.put(ours, List.of(m(45_000), m(10_000), m(50_000))); // median 45,000
    runs.put(ordered, List.of(m(9_000)));
    runs.put(kafka, List.of(m(22_500)));
    runs.put(deleting, List.of(m(70_000)));

    List<List<String>> rows = DrainBenchmark.table(runs).rows();

    assertThat(rows).hasSize(5);
    assertThat(rows.get(0))
        .containsSubsequence("plain JDBC relay", "2 × 500, mark", "warm", "50,000");
    assertThat(rows.get(0).get(5)).isEmpty();
    assertThat(rows.get(1).get(4)).isEqualTo("10,000–50,000");
    assertThat(rows.get(1).get(5)).isEqualTo("0.90× of plain JDBC relay");
    assertThat(rows.get(2).get(0)).endsWith("ordered per aggregate (10 aggregates)");
    assertThat(rows.get(2).get(5)).isEqualTo("0.20× of txoutbox, no-op publisher");
    assertThat(rows.get(3).get(5)).isEqualTo("0.50× of txoutbox, no-op publisher");
    // no deleting baseline in this run: no ratio rather than one against the marking baseline
    assertThat(rows.get(4).get(5)).isEmpty();
    assertThat(rows.get(1).get(6)).isEqualTo("2.0");
    assertThat(rows.get(1).get(7)).as("no JIT share measured").isEqualTo("—");
    assertThat(rows.get(1).get(8)).isEqualTo("1.00×");
    assertThat(rows.get(1).get(9)).as("no JIT share measured").isEmpty();
    assertThat(rows.get(1).get(10)).isEqualTo("9.0");
    assertThat(rows.get(1).get(11)).isEqualTo("1.0–3.0");
  }

  @Test
  void freshAndWarmRunsOfAShapeStandSideBySideEachAgainstItsOwnKindOfJvm() {
    DrainBenchmark.Case jdbc = new DrainBenchmark.Case("jdbc", 1, 100, MARK);
    DrainBenchmark.Case ours = new DrainBenchmark.Case("noop", 1, 100, MARK);
    Map<DrainBenchmark.Case, List<DrainBenchmark.Measurement>> runs = new LinkedHashMap<>();
    runs.put(
        jdbc.inFreshJvm(true),
        List.of(new DrainBenchmark.Measurement(40_000, 8.0, 15, 1).withJit(5.0)));
    runs.put(
        ours.inFreshJvm(true),
        List.of(new DrainBenchmark.Measurement(30_000, 20.0, 15, 1).withJit(12.0)));
    runs.put(jdbc, List.of(new DrainBenchmark.Measurement(50_000, 5.0, 14, 1).withJit(0.5)));
    runs.put(ours, List.of(new DrainBenchmark.Measurement(45_000, 6.0, 14, 1).withJit(1.5)));

    List<List<String>> table = DrainBenchmark.table(runs).rows();
    List<List<String>> sideBySide = DrainBenchmark.freshAndWarm(runs).rows();

    assertThat(table).extracting(r -> r.get(2)).containsExactly("fresh", "fresh", "warm", "warm");
    assertThat(table.get(1).get(5)).isEqualTo("0.75× of plain JDBC relay");
    assertThat(table.get(1).get(7)).as("the JIT compiler threads' share").isEqualTo("12.0");
    assertThat(table.get(3).get(5)).isEqualTo("0.90× of plain JDBC relay");
    assertThat(table.get(3).get(7)).as("a warm JVM still compiling").isEqualTo("1.5");
    assertThat(table.get(1).get(9)).as("without the JIT: 8.0 vs 3.0").isEqualTo("2.67×");
    assertThat(table.get(3).get(9)).as("without the JIT: 4.5 vs 4.5").isEqualTo("1.00×");
    assertThat(sideBySide).hasSize(2);
    assertThat(sideBySide.get(0)).startsWith("plain JDBC relay", "1 × 100, mark", "40,000", "");
    assertThat(sideBySide.get(1))
        .containsExactly(
            "txoutbox, no-op publisher",
            "1 × 100, mark",
            "30,000",
            "0.75×",
            "45,000",
            "0.90×",
            "20.0 (2.50×)",
            "6.0 (1.20×)",
            "8.0 (2.67×) / 4.5 (1.00×)",
            "15.0 / 14.0");
  }

  @Test
  void aWarmUpRunsTheRelaysPerBatchCodeInSmallBatchesButABrokersInItsOwn() {
    DrainBenchmark.Case ours = new DrainBenchmark.Case("noop", 2, 500, CompletionMode.DELETE);
    DrainBenchmark.Case kafka = new DrainBenchmark.Case("kafka", 2, 500, MARK);

    assertThat(ours.warmingUp(10))
        .isEqualTo(new DrainBenchmark.Case("noop", 2, 10, CompletionMode.DELETE));
    assertThat(ours.warmingUp(0)).isEqualTo(ours);
    assertThat(kafka.warmingUp(10)).isEqualTo(kafka);
  }

  @Test
  void aFreshCaseReachesTheChildJvmUnchanged() {
    DrainBenchmark.Case ordered =
        new DrainBenchmark.Case(
            "noop", 2, 500, CompletionMode.DELETE, Ordering.PER_AGGREGATE, 10, true);
    Map<String, String> options = new LinkedHashMap<>();
    List<String> args = ordered.options();
    for (int i = 0; i < args.size(); i += 2) {
      options.put(args.get(i).substring(2), args.get(i + 1));
    }

    assertThat(DrainBenchmark.Case.fromOptions(options)).isEqualTo(ordered);
  }

  @Test
  void shapesAreReadAsWorkersTimesBatchWithAnOptionalModeAndABadOneIsRefusedByName() {
    List<CompletionMode> both = List.of(CompletionMode.values());
    assertThat(DrainBenchmark.shapes("1x100, 2x500:delete,2x500:mark"))
        .containsExactly(
            new DrainBenchmark.Shape(1, 100, both),
            new DrainBenchmark.Shape(2, 500, List.of(CompletionMode.DELETE)),
            new DrainBenchmark.Shape(2, 500, List.of(MARK)));
    assertThat(
            DrainBenchmark.cases(
                "noop", DrainBenchmark.shapes(DrainBenchmark.DEFAULT_SHAPES), true))
        .extracting(DrainBenchmark.Case::shape)
        .containsExactly(
            "1 × 100, mark", "2 × 100, mark", "1 × 500, mark", "2 × 500, mark", "2 × 500, delete");
    for (String bad :
        List.of("2", "2x", "0x100", "2x500x1", "twoxten", "2x500:drop", "2x500:mark:delete")) {
      assertThatThrownBy(() -> DrainBenchmark.shapes(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--shapes")
          .hasMessageContaining("'" + bad + "'");
    }
  }

  @Test
  void theReportCasesCoverEveryShapeModeAndAggregateCount() {
    int[][] shapes = {{1, 100}, {2, 100}, {4, 100}, {1, 500}, {2, 500}, {4, 500}};
    assertThat(DrainBenchmark.cases("noop", shapes)).hasSize(12);
    assertThat(DrainBenchmark.cases("ceiling", shapes)).hasSize(12);
    assertThat(DrainBenchmark.cases("per-row", shapes))
        .extracting(DrainBenchmark.Case::batchSize)
        .containsOnly(100);
    assertThat(DrainBenchmark.cases("ordered", shapes))
        .extracting(DrainBenchmark.Case::aggregates)
        .containsExactly(1_000, 10, 1);
    assertThat(DrainBenchmark.cases("kafka", shapes))
        .extracting(DrainBenchmark.Case::shape)
        .containsExactly("1 × 100, mark", "2 × 500, mark");
  }

  private static DrainBenchmark.Measurement m(double rate) {
    return new DrainBenchmark.Measurement(rate, 2.0, 9.0, rate < 45_000 ? 1.0 : 3.0);
  }
}
