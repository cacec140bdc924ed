package dev.txoutbox.bench;

import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * Writes the report: {@code REPORT.md} with every section, each chart as a PNG beside it (rendered
 * headless with JFreeChart), and the paste-ready summary table as {@code summary.md}. Stateless.
 */
final class ReportWriter {

  static final String REPORT = "REPORT.md";
  static final String SUMMARY = "summary.md";
  private static final int WIDTH = 900;
  private static final int ROW_HEIGHT = 24;

  private ReportWriter() {}

  /**
   * Writes {@code header}, then the sections, into {@code directory} (created if missing), and
   * {@code summary} as {@value #SUMMARY}.
   *
   * @return the report's path
   */
  static Path write(
      Path directory, String header, ReportSection.Table summary, List<ReportSection> sections)
      throws IOException {
    Files.createDirectories(directory);
    StringBuilder md = new StringBuilder(header.strip()).append("\n\n");
    md.append("## Summary\n\n")
        .append(markdown(summary))
        .append("\nThis table is also written to `")
        .append(SUMMARY)
        .append("` beside this report, to paste into the README.\n\n");
    for (ReportSection section : sections) {
      md.append("## ").append(section.title()).append("\n\n");
      for (ReportSection.Block block : section.blocks()) {
        // Java 17: no pattern matching in switch yet, so one instanceof per kind of block.
        if (block instanceof ReportSection.Text t) {
          md.append(t.markdown().strip()).append("\n\n");
        } else if (block instanceof ReportSection.Table t) {
          md.append(markdown(t)).append('\n');
        } else if (block instanceof ReportSection.Chart c) {
          png(directory.resolve(c.file()), c);
          md.append("![").append(c.title()).append("](").append(c.file()).append(")\n\n");
        }
      }
    }
    Files.writeString(directory.resolve(SUMMARY), markdown(summary));
    Path report = directory.resolve(REPORT);
    Files.writeString(report, md.toString().strip() + "\n");
    return report;
  }

  /** A GitHub Markdown table; cells with a {@code |} are escaped. */
  static String markdown(ReportSection.Table table) {
    StringBuilder out = new StringBuilder();
    row(out, table.columns());
    out.append("|---");
    out.append("|---:".repeat(table.columns().size() - 1)).append("|\n");
    for (List<String> r : table.rows()) {
      row(out, r);
    }
    return out.toString();
  }

  private static void row(StringBuilder out, List<String> cells) {
    for (String cell : cells) {
      out.append("| ").append(cell.replace("|", "\\|")).append(' ');
    }
    out.append("|\n");
  }

  /** Renders {@code chart} as a PNG at {@code file}. */
  static void png(Path file, ReportSection.Chart chart) throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (Map.Entry<String, List<Double>> s : chart.series().entrySet()) {
      for (int i = 0; i < chart.categories().size(); i++) {
        double v = s.getValue().get(i);
        boolean missing = Double.isNaN(v) || (chart.logarithmic() && v <= 0);
        data.addValue(missing ? null : v, s.getKey(), chart.categories().get(i));
      }
    }
    JFreeChart jfree =
        ChartFactory.createBarChart(
            chart.title(),
            null,
            chart.valueAxis(),
            data,
            chart.horizontal() ? PlotOrientation.HORIZONTAL : PlotOrientation.VERTICAL,
            chart.series().size() > 1,
            false,
            false);
    jfree.setBackgroundPaint(Color.WHITE);
    jfree.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    CategoryPlot plot = jfree.getCategoryPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    if (chart.logarithmic()) {
      LogarithmicAxis axis = new LogarithmicAxis(chart.valueAxis());
      axis.setAllowNegativesFlag(false);
      axis.setStrictValuesFlag(false);
      plot.setRangeAxis(axis);
    }
    BarRenderer renderer = (BarRenderer) plot.getRenderer();
    renderer.setBarPainter(new StandardBarPainter());
    renderer.setShadowVisible(false);
    renderer.setItemMargin(0.02);
    CategoryAxis categories = plot.getDomainAxis();
    categories.setMaximumCategoryLabelLines(chart.horizontal() ? 1 : 2);
    if (!chart.horizontal() && chart.categories().size() > 6) {
      categories.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
    }
    int height =
        chart.horizontal()
            ? Math.max(400, 120 + ROW_HEIGHT * chart.categories().size() * chart.series().size())
            : 500;
    ChartUtils.saveChartAsPNG(file.toFile(), jfree, WIDTH, height);
  }
}
