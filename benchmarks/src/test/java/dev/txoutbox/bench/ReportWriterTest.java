package dev.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {

  @TempDir Path dir;

  @BeforeAll
  static void headless() {
    System.setProperty("java.awt.headless", "true");
  }

  private static ReportSection.Table summary() {
    return new ReportSection.Table(
        Report.SUMMARY_COLUMNS,
        List.of(List.of("drain, 2 × 500, mark", "50,000 events/s", "0.90× of plain", "2.0 / 9.0")));
  }

  private static ReportSection section() {
    return new ReportSection("1. Drain")
        .text("Some *text*.")
        .table(
            new ReportSection.Table(
                List.of("case", "events/s"), List.of(List.of("a | b", "1,000"), List.of("c", "2"))))
        .chart(
            new ReportSection.Chart(
                "drain-rate.png",
                "Drain rate",
                "events/s",
                List.of("ceiling", "ours"),
                Map.of("events/s", List.of(2_000.0, Double.NaN)),
                true,
                false));
  }

  @Test
  void writesTheReportItsChartAndTheSummaryFromFixedData() throws Exception {
    Path report =
        ReportWriter.write(dir, "# Benchmark report\n\nheader", summary(), List.of(section()));

    String md = Files.readString(report);
    assertThat(report.getFileName()).hasToString(ReportWriter.REPORT);
    assertThat(md)
        .startsWith("# Benchmark report\n\nheader\n\n## Summary\n\n| figure |")
        .contains("## 1. Drain\n\nSome *text*.\n\n| case | events/s |\n|---|---:|\n")
        .contains("| a \\| b | 1,000 |\n")
        .contains("![Drain rate](drain-rate.png)");
    assertThat(Files.readString(dir.resolve(ReportWriter.SUMMARY)))
        .isEqualTo(ReportWriter.markdown(summary()))
        .contains("| drain, 2 × 500, mark | 50,000 events/s | 0.90× of plain | 2.0 / 9.0 |");
    BufferedImage png = ImageIO.read(dir.resolve("drain-rate.png").toFile());
    assertThat(png.getWidth()).isEqualTo(900);
    assertThat(png.getHeight()).isGreaterThanOrEqualTo(400);
  }

  @Test
  void rendersALogarithmicChartWithZerosLeftOut() throws Exception {
    Path file = dir.resolve("latency.png");
    ReportWriter.png(
        file,
        new ReportSection.Chart(
            "latency.png",
            "Latency",
            "ms",
            List.of("in-process", "poll"),
            Map.of("p50", List.of(0.0, 12.5), "p99", List.of(3.0, 40.0)),
            false,
            true));
    assertThat(ImageIO.read(file.toFile()).getHeight()).isEqualTo(500);
  }

  @Test
  void rejectsARowOfTheWrongWidthNamingTheCounts() {
    assertThatThrownBy(
            () -> new ReportSection.Table(List.of("a", "b"), List.of(List.of("only one"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must have 2 cells but had 1");
  }

  @Test
  void rejectsAChartFileThatIsNotAPlainPngName() {
    assertThatThrownBy(
            () ->
                new ReportSection.Chart(
                    "../x.png", "t", "v", List.of("a"), Map.of("s", List.of(1.0)), false, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file must be a plain name ending .png but was ../x.png");
  }

  @Test
  void includesTheTuningLogVerbatim() throws Exception {
    Path log = dir.resolve("tuning-log.md");
    Files.writeString(log, "### 2026-12-01 — a change\n\n- effect: 2× \n");
    ReportSection section = Report.tuningLog(log);
    assertThat(section.blocks()).hasSize(1);
    assertThat(((ReportSection.Text) section.blocks().get(0)).markdown())
        .endsWith("### 2026-12-01 — a change\n\n- effect: 2× \n");
  }

  @Test
  void quickRunsGoUnderTheBuildOutputAndTheCommandIsRecorded() {
    Report.Options quick = Report.Options.parse(new String[] {"--quick", "--sections", "drain"});
    assertThat(quick.out()).isEqualTo(Path.of(Report.QUICK_OUT));
    assertThat(quick.profile()).isEqualTo(ReportProfile.QUICK);
    assertThat(quick.sections()).containsExactly("drain");
    assertThat(quick.command()).endsWith("dev.txoutbox.bench.Report --quick --sections drain");
    assertThat(Report.Options.parse(new String[0]).out()).isEqualTo(Path.of(Report.DEFAULT_OUT));
    assertThatThrownBy(() -> Report.Options.parse(new String[] {"--sections", "drian"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "--sections takes drain, writer, latency, backlog, wal but had 'drian'");
  }
}
