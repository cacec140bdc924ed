package dev.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SoakBenchmarkTest {

  @Test
  void theCsvHasOneHeaderAndOneLineASampleWithoutThousandsSeparators() {
    List<String> row =
        SoakBenchmark.COLUMNS.stream().map(c -> "1,234").toList(); // every cell formatted
    String csv = SoakBenchmark.csv(List.of(row, row));

    List<String> lines = csv.lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).isEqualTo(String.join(",", SoakBenchmark.COLUMNS));
    assertThat(lines.get(1).split(",")).hasSize(SoakBenchmark.COLUMNS.size()).containsOnly("1234");
  }

  @Test
  void aCountThatIsNotPositiveIsRefusedByItsOptionName() {
    assertThat(SoakBenchmark.positive(Map.of(), "minutes", 60)).isEqualTo(60);
    assertThat(SoakBenchmark.positive(Map.of("minutes", "2"), "minutes", 60)).isEqualTo(2);
    for (String bad : List.of("0", "-1", "two")) {
      assertThatThrownBy(() -> SoakBenchmark.positive(Map.of("minutes", bad), "minutes", 60))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--minutes")
          .hasMessageContaining("'" + bad + "'");
    }
  }
}
