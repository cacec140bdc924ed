package dev.txoutbox.console;

import dev.txoutbox.OutboxStatus;
import dev.txoutbox.TableUpkeep;
import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The overview of one outbox: the admin's {@link OutboxStatus}, the WAL slot, and the problems they
 * show first, in words for an operator woken at night. Thread-safe: it holds no state.
 */
final class Overview {

  /** A due event older than this means the relay is behind or stopped: 1 minute. */
  static final Duration BEHIND_AFTER = Duration.ofMinutes(1);

  private Overview() {}

  /** How bad a problem is. */
  enum Level {
    CRITICAL,
    WARNING,
    OK
  }

  /**
   * Dead tuples in an events table that autovacuum does not visit from which the overview warns:
   * 10,000, ten seconds of a busy outbox, far more than a vacuumed table carries at rest.
   */
  static final long DEAD_TUPLES_WITHOUT_AUTOVACUUM = 10_000;

  static Map<String, Object> of(
      OutboxStatus status,
      TableUpkeep upkeep,
      @Nullable Map<String, Object> slot,
      RelayRows.Relays relays) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("pending", status.pending());
    json.put("dueNow", status.dueNow());
    json.put("delayed", status.pending() - status.dueNow());
    json.put("deadLetters", status.deadLetters());
    json.put(
        "oldestPendingAgeSeconds",
        status.oldestPendingAge().map(age -> age.toMillis() / 1000.0).orElse(null));
    json.put("processedLastMinute", status.processedLastMinute());
    json.put("slot", slot);
    json.put("relaysRunning", relays.missing() ? null : relays.running());
    Map<String, Object> table = new LinkedHashMap<>();
    table.put("sizeBytes", upkeep.sizeBytes());
    table.put("liveTuples", upkeep.liveTuples());
    table.put("deadTuples", upkeep.deadTuples());
    table.put("lastVacuum", upkeep.lastVacuum().map(Object::toString).orElse(null));
    table.put("autovacuum", upkeep.autovacuum());
    json.put("eventsTable", table);
    json.put("problems", problems(status, upkeep, slot, relays));
    return json;
  }

  /** The problems, worst first; one "all clear" when there is none. */
  static List<Map<String, Object>> problems(
      OutboxStatus status,
      TableUpkeep upkeep,
      @Nullable Map<String, Object> slot,
      RelayRows.Relays relays) {
    List<Map<String, Object>> problems = new ArrayList<>();
    boolean slotInUse = slot != null && Boolean.TRUE.equals(slot.get("active"));
    if (!relays.missing() && relays.running() == 0 && status.dueNow() > 0 && !slotInUse) {
      problems.add(
          problem(
              Level.CRITICAL,
              "No relay is running: "
                  + status.dueNow()
                  + (status.dueNow() == 1 ? " event is" : " events are")
                  + " due and no relay has written a heartbeat recently. Start a relay, or see"
                  + " Relays for the last one seen. (Relays of versions before heartbeats do not"
                  + " show here.)"));
    }
    Duration oldest = status.oldestPendingAge().orElse(Duration.ZERO);
    boolean behind = oldest.compareTo(BEHIND_AFTER) >= 0;
    if (behind && status.processedLastMinute() == 0) {
      problems.add(
          problem(
              Level.CRITICAL,
              "Stalled: "
                  + status.dueNow()
                  + " events are due and none was published in the last minute; the oldest has"
                  + " waited "
                  + DurationText.of(oldest)
                  + ". Check that a relay is running and that the broker is reachable."));
    } else if (behind) {
      problems.add(
          problem(
              Level.WARNING,
              "Behind: the oldest due event has waited "
                  + DurationText.of(oldest)
                  + ". Relays published "
                  + status.processedLastMinute()
                  + " events in the last minute but are not keeping up."));
    }
    if (slot != null && "lost".equals(slot.get("walStatus"))) {
      problems.add(
          problem(
              Level.CRITICAL,
              "WAL slot "
                  + slot.get("name")
                  + " is lost: the server removed WAL it had not read. The WAL relay cannot go on"
                  + " from it; its polling sweeper still publishes the outbox."));
    } else if (slot != null && Boolean.FALSE.equals(slot.get("active"))) {
      problems.add(
          problem(
              Level.WARNING,
              "WAL slot "
                  + slot.get("name")
                  + " is not in use by any relay and keeps "
                  + bytes(slot.get("retainedBytes"))
                  + " of WAL on the database server. Start the WAL relay, or drop the slot if it"
                  + " is no longer used."));
    }
    if (!upkeep.autovacuum() && upkeep.deadTuples() >= DEAD_TUPLES_WITHOUT_AUTOVACUUM) {
      problems.add(
          problem(
              Level.WARNING,
              "Autovacuum is off for the events table, which holds "
                  + upkeep.deadTuples()
                  + " dead tuples ("
                  + bytes(upkeep.sizeBytes())
                  + " with its indexes): they grow until something vacuums the table. Run the"
                  + " relay with vacuumInterval (--vacuum-interval), or turn autovacuum on."));
    }
    if (status.deadLetters() > 0) {
      problems.add(
          problem(
              Level.WARNING,
              status.deadLetters()
                  + (status.deadLetters() == 1 ? " dead letter: an event" : " dead letters: events")
                  + " that failed for good and will not be published unless requeued. See Dead"
                  + " letters."));
    }
    if (problems.isEmpty()) {
      problems.add(
          problem(
              Level.OK,
              "All clear: "
                  + status.pending()
                  + " pending, "
                  + status.dueNow()
                  + " due, none waiting longer than a minute, no dead letters."));
    }
    return problems;
  }

  private static Map<String, Object> problem(Level level, String text) {
    return Map.of("level", level.name().toLowerCase(java.util.Locale.ROOT), "text", text);
  }

  /** A byte count for people: {@code 12.3 MB}. */
  static String bytes(@Nullable Object value) {
    if (!(value instanceof Long n)) {
      return "an unknown amount";
    }
    if (n < 1024) {
      return n + " bytes";
    }
    String[] units = {"kB", "MB", "GB", "TB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
