package dev.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TracingTableTest {

  /** A child's run of 100,000 events in {@code seconds}, with {@code jvmSeconds} of JVM CPU. */
  private static TracingBenchmark.Run run(double seconds, double jvmSeconds) {
    return new TracingBenchmark.Run(100_000, seconds * 1e9, jvmSeconds * 1e9, 1e9, "1.00");
  }

  @Test
  void eachCaseIsComparedWithTracingAbsentInTheSameRun() {
    Map<String, List<TracingBenchmark.Run>> runs = new LinkedHashMap<>();
    runs.put("absent", List.of(run(2, 0.2), run(4, 0.4), run(2.5, 0.3))); // 40,000/s, 3 µs
    runs.put("memory", List.of(run(5, 0.6))); // 20,000/s, 6 µs

    List<List<String>> rows = TracingBenchmark.table(runs).rows();

    assertThat(rows.get(0))
        .containsExactly(
            "absent",
            TracingBenchmark.CASES.get("absent"),
            "40,000",
            "25,000–50,000",
            "1.00×",
            "3.0",
            "1.00×",
            "10.0");
    assertThat(rows.get(1)).containsSubsequence("memory", "20,000", "0.50×", "6.0", "2.00×");
  }

  @Test
  void withoutTheAbsentCaseThereIsNoRatio() {
    List<List<String>> rows = TracingBenchmark.table(Map.of("noop", List.of(run(2, 0.2)))).rows();

    assertThat(rows.get(0).get(4)).isEmpty();
    assertThat(rows.get(0).get(6)).isEmpty();
  }
}
