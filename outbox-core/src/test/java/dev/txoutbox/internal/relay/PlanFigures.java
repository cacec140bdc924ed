package dev.txoutbox.internal.relay;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Figures read from the lines of an {@code EXPLAIN (ANALYZE, BUFFERS)} plan, for plan tests. */
final class PlanFigures {

  private static final Pattern BUFFERS =
      Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?");

  private PlanFigures() {}

  /** Pages the whole statement read (hit or read), from its top node's buffer count. */
  static long buffers(List<String> lines) {
    for (String line : lines) {
      Matcher m = BUFFERS.matcher(line);
      if (m.find()) {
        long hit = m.group(1) == null ? 0 : Long.parseLong(m.group(1));
        return hit + (m.group(2) == null ? 0 : Long.parseLong(m.group(2)));
      }
    }
    throw new IllegalStateException("no buffer counts in the plan");
  }
}
