package dev.txoutbox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One section of the benchmark report as data: a title and blocks of text, tables and charts in
 * order. {@link ReportWriter} renders it; the benchmarks only fill it. Not thread-safe.
 */
final class ReportSection {

  /** A part of a section. */
  sealed interface Block permits Text, Table, Chart {}

  /** A Markdown paragraph, written as it is. */
  record Text(String markdown) implements Block {}

  /** A table: one header row and rows of already formatted cells, the first column left-aligned. */
  record Table(List<String> columns, List<List<String>> rows) implements Block {
    Table {
      columns = List.copyOf(columns);
      rows = rows.stream().map(List::copyOf).toList();
      for (List<String> row : rows) {
        if (row.size() != columns.size()) {
          throw new IllegalArgumentException(
              "a row must have " + columns.size() + " cells but had " + row.size() + ": " + row);
        }
      }
    }
  }

  /**
   * A bar chart written to {@code file} (a PNG name in the report's directory): one bar per
   * category and series, values in {@code valueAxis} units; {@code logarithmic} for values that
   * span decades. A missing value (NaN) leaves its bar out.
   */
  record Chart(
      String file,
      String title,
      String valueAxis,
      List<String> categories,
      Map<String, List<Double>> series,
      boolean horizontal,
      boolean logarithmic)
      implements Block {
    Chart {
      if (!file.matches("[a-z0-9-]+\\.png")) {
        throw new IllegalArgumentException("file must be a plain name ending .png but was " + file);
      }
      categories = List.copyOf(categories);
      series = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(series));
      for (Map.Entry<String, List<Double>> s : series.entrySet()) {
        if (s.getValue().size() != categories.size()) {
          throw new IllegalArgumentException(
              "series '"
                  + s.getKey()
                  + "' must have "
                  + categories.size()
                  + " values but had "
                  + s.getValue().size());
        }
      }
    }
  }

  private final String title;
  private final List<Block> blocks = new ArrayList<>();

  ReportSection(String title) {
    this.title = title;
  }

  String title() {
    return title;
  }

  List<Block> blocks() {
    return List.copyOf(blocks);
  }

  ReportSection text(String markdown) {
    blocks.add(new Text(markdown));
    return this;
  }

  ReportSection table(Table table) {
    blocks.add(table);
    return this;
  }

  ReportSection chart(Chart chart) {
    blocks.add(chart);
    return this;
  }
}
