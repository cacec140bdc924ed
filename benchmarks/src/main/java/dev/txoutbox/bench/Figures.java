package dev.txoutbox.bench;

import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** Medians, percentiles and the report's number formats. Stateless. */
final class Figures {

  private Figures() {}

  /** The median of {@code f} over {@code runs}: the mean of the middle two for an even count. */
  static <T> double median(List<T> runs, ToDoubleFunction<T> f) {
    return median(runs.stream().mapToDouble(f).toArray());
  }

  static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** The {@code p}-quantile ({@code 0.99} for p99) of sorted values, 0 if there are none. */
  static long percentile(long[] sorted, double p) {
    return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, p * sorted.length)];
  }

  /** A rate with thousands separators, {@code —} for NaN. */
  static String rate(double perSecond) {
    return Double.isNaN(perSecond) ? "—" : String.format("%,.0f", perSecond);
  }

  /** A ratio such as {@code 0.93×}, empty for NaN (no reference in this run). */
  static String ratio(double value, double reference) {
    double r = value / reference;
    return Double.isNaN(r) || Double.isInfinite(r) ? "" : String.format("%.2f×", r);
  }

  /** One decimal, {@code —} for NaN. */
  static String one(double value) {
    return Double.isNaN(value) ? "—" : String.format("%.1f", value);
  }

  /** Two decimals, {@code —} for NaN. */
  static String two(double value) {
    return Double.isNaN(value) ? "—" : String.format("%.2f", value);
  }
}
