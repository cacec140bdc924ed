package dev.txoutbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.txoutbox.DeadLetter;
import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.spi.Printable;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders dead letters and their groups as text tables, with control characters escaped, or as
 * JSON, where every string is exact (escaped by JSON's rules). Error texts are masked in both, like
 * everything the CLI prints. Stateless.
 */
final class DeadLetterFormat {

  private static final int ERROR_WIDTH = 100;

  private DeadLetterFormat() {}

  static String table(List<DeadLetter> letters) {
    if (letters.isEmpty()) {
      return "no dead letters";
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {"ID", "EVENT TYPE", "AGGREGATE", "ATTEMPTS", "DEAD SINCE", "LAST ERROR"});
    for (DeadLetter d : letters) {
      rows.add(
          new String[] {
            d.id().toString(),
            Printable.of(d.eventType()),
            Printable.of(d.aggregateType() + "/" + d.aggregateId()),
            Integer.toString(d.attempts()),
            time(d.deadLetteredAt()),
            oneLine(d.lastError())
          });
    }
    return columns(rows);
  }

  static String json(List<DeadLetter> letters) {
    ArrayNode array = Json.array();
    for (DeadLetter d : letters) {
      ObjectNode o =
          array
              .addObject()
              .put("id", d.id().toString())
              .put("aggregate_type", d.aggregateType())
              .put("aggregate_id", d.aggregateId())
              .put("event_type", d.eventType())
              .put("attempts", d.attempts());
      Json.put(o, "created_at", d.createdAt());
      Json.put(o, "dead_lettered_at", d.deadLetteredAt());
      o.put("last_error", OutputMasking.mask(d.lastError()));
      Json.put(o, "headers", d.headers());
      o.put("raw_headers", d.rawHeaders());
      Json.putRaw(o, "payload", d.payload());
    }
    return Json.write(array);
  }

  static String groups(List<DeadLetterGroup> groups) {
    if (groups.isEmpty()) {
      return "no dead letters";
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"COUNT", "EVENT TYPE", "NEWEST", "ERROR FINGERPRINT"});
    for (DeadLetterGroup g : groups) {
      rows.add(
          new String[] {
            Long.toString(g.count()),
            Printable.of(g.eventType()),
            time(g.newest()),
            oneLine(g.errorFingerprint())
          });
    }
    return columns(rows);
  }

  static String groupsJson(List<DeadLetterGroup> groups) {
    ArrayNode array = Json.array();
    for (DeadLetterGroup g : groups) {
      ObjectNode o =
          array
              .addObject()
              .put("event_type", g.eventType())
              .put("error_fingerprint", OutputMasking.mask(g.errorFingerprint()))
              .put("count", g.count());
      Json.put(o, "newest", g.newest());
      o.put("sample_error", OutputMasking.mask(g.sampleError()));
    }
    return Json.write(array);
  }

  private static String time(Instant t) {
    return t == null ? "-" : t.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  private static String oneLine(String text) {
    if (text == null) {
      return "-";
    }
    String s = OutputMasking.line(text.replaceAll("[ \\t\\r\\n]+", " ").trim());
    return s.length() <= ERROR_WIDTH ? s : s.substring(0, ERROR_WIDTH - 1) + "…";
  }

  /**
   * Left-aligned columns two spaces apart; the last column is not padded. Also {@code fleet list}'s
   * table.
   */
  static String columns(List<String[]> rows) {
    int n = rows.get(0).length;
    int[] width = new int[n];
    for (String[] row : rows) {
      for (int i = 0; i < n; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] row : rows) {
      if (sb.length() > 0) {
        sb.append(System.lineSeparator());
      }
      for (int i = 0; i < n; i++) {
        sb.append(i == n - 1 ? row[i] : String.format("%-" + width[i] + "s  ", row[i]));
      }
    }
    return sb.toString();
  }
}
