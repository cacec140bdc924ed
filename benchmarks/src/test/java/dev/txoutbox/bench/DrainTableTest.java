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
    assertThat(rows.get(0)).containsSubsequence("plain JDBC relay", "2 × 500, mark", "50,000");
    assertThat(rows.get(0).get(4)).isEmpty();
    assertThat(rows.get(1).get(3)).isEqualTo("10,000–50,000");
    assertThat(rows.get(1).get(4)).isEqualTo("0.90× of plain JDBC relay");
    assertThat(rows.get(2).get(0)).endsWith("ordered per aggregate (10 aggregates)");
    assertThat(rows.get(2).get(4)).isEqualTo("0.20× of txoutbox, no-op publisher");
    assertThat(rows.get(3).get(4)).isEqualTo("0.50× of txoutbox, no-op publisher");
    // no deleting baseline in this run: no ratio rather than one against the marking baseline
    assertThat(rows.get(4).get(4)).isEmpty();
    assertThat(rows.get(1).get(5)).isEqualTo("2.0");
    assertThat(rows.get(1).get(6)).isEqualTo("9.0");
  }

  @Test
  void shapesAreReadAsWorkersTimesBatchAndABadOneIsRefusedByName() {
    assertThat(DrainBenchmark.shapes("1x100, 2x500"))
        .isDeepEqualTo(new int[][] {{1, 100}, {2, 500}});
    for (String bad : List.of("2", "2x", "0x100", "2x500x1", "twoxten")) {
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
    return new DrainBenchmark.Measurement(rate, 2.0, 9.0);
  }
}
