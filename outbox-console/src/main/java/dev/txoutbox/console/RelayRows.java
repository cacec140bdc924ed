package dev.txoutbox.console;

import static dev.txoutbox.schema.model.tables.OutboxRelays.OUTBOX_RELAYS;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The relays' heartbeat rows ({@code <prefix>outbox_relays}, written by each running relay every
 * few seconds) as the Relays page and the overview show them: each relay's state, the ages of its
 * last beat and last completed cycle on the database's clock, its settings. The table is small by
 * design (each relay deletes rows not seen for a week), so reading the newest {@value #MAX_ROWS}
 * rows is cheap without an index. Thread-safe: it holds no state.
 */
final class RelayRows {

  /** Most relays listed, the running first: 200. */
  static final int MAX_ROWS = 200;

  /**
   * A relay whose last beat is older than this many of its own beat intervals is shown as not seen
   * (stale): it stopped without closing, or cannot reach the database: 3.
   */
  static final int STALE_AFTER_BEATS = 3;

  /** SQLSTATE of a missing table: the outbox schema is older than version 3. */
  private static final String UNDEFINED_TABLE = "42P01";

  private RelayRows() {}

  /** What a relay's row says of it. */
  enum State {
    RUNNING,
    STALE,
    STOPPED;

    String json() {
      return switch (this) {
        case RUNNING -> "running";
        case STALE -> "stale";
        case STOPPED -> "stopped";
      };
    }
  }

  /** The relays read at one moment. {@code missing} when the table is not there (schema v2). */
  record Relays(List<Map<String, Object>> rows, long running, boolean missing) {}

  static Relays read(DSLContext dsl) {
    Field<Double> beatAge = age(OUTBOX_RELAYS.LAST_BEAT_AT).as("beat_age");
    Field<Double> cycleAge = age(OUTBOX_RELAYS.LAST_CYCLE_AT).as("cycle_age");
    Field<Double> runningFor = age(OUTBOX_RELAYS.STARTED_AT).as("running_for");
    List<? extends Record> records;
    try {
      records =
          dsl.select(
                  OUTBOX_RELAYS.RELAY_NAME,
                  OUTBOX_RELAYS.KIND,
                  OUTBOX_RELAYS.HOST,
                  OUTBOX_RELAYS.PID,
                  OUTBOX_RELAYS.SETTINGS,
                  OUTBOX_RELAYS.BEAT_INTERVAL_MS,
                  OUTBOX_RELAYS.STARTED_AT,
                  OUTBOX_RELAYS.LAST_BEAT_AT,
                  OUTBOX_RELAYS.LAST_CYCLE_AT,
                  OUTBOX_RELAYS.STOPPED_AT,
                  beatAge,
                  cycleAge,
                  runningFor)
              .from(OUTBOX_RELAYS)
              .orderBy(OUTBOX_RELAYS.STOPPED_AT.isNotNull(), OUTBOX_RELAYS.LAST_BEAT_AT.desc())
              .limit(MAX_ROWS)
              .fetch();
    } catch (DataAccessException e) {
      if (UNDEFINED_TABLE.equals(e.sqlState())) {
        return new Relays(List.of(), 0, true);
      }
      throw e;
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    long running = 0;
    for (Record r : records) {
      State state =
          state(
              r.get(OUTBOX_RELAYS.STOPPED_AT) != null,
              r.get(beatAge),
              r.get(OUTBOX_RELAYS.BEAT_INTERVAL_MS));
      if (state == State.RUNNING) {
        running++;
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("name", r.get(OUTBOX_RELAYS.RELAY_NAME));
      row.put("kind", r.get(OUTBOX_RELAYS.KIND));
      row.put("state", state.json());
      row.put("host", r.get(OUTBOX_RELAYS.HOST));
      row.put("pid", r.get(OUTBOX_RELAYS.PID));
      row.put("settings", Text.masked(r.get(OUTBOX_RELAYS.SETTINGS)));
      row.put("beatIntervalMillis", r.get(OUTBOX_RELAYS.BEAT_INTERVAL_MS));
      row.put("startedAt", instant(r.get(OUTBOX_RELAYS.STARTED_AT)));
      row.put("lastBeatAt", instant(r.get(OUTBOX_RELAYS.LAST_BEAT_AT)));
      row.put("lastCycleAt", instant(r.get(OUTBOX_RELAYS.LAST_CYCLE_AT)));
      row.put("stoppedAt", instant(r.get(OUTBOX_RELAYS.STOPPED_AT)));
      row.put("lastBeatAgeSeconds", r.get(beatAge));
      row.put("lastCycleAgeSeconds", r.get(cycleAge));
      row.put("runningForSeconds", r.get(runningFor));
      rows.add(row);
    }
    return new Relays(rows, running, false);
  }

  /**
   * Stopped if it said so; running if its last beat is within {@value #STALE_AFTER_BEATS} beats.
   */
  static State state(
      boolean stopped, @Nullable Double beatAgeSeconds, @Nullable Integer intervalMs) {
    if (stopped) {
      return State.STOPPED;
    }
    double limit = STALE_AFTER_BEATS * (intervalMs == null ? 10_000 : intervalMs) / 1000.0;
    return beatAgeSeconds != null && beatAgeSeconds <= limit ? State.RUNNING : State.STALE;
  }

  private static java.time.@Nullable Instant instant(java.time.@Nullable OffsetDateTime time) {
    return time == null ? null : time.toInstant();
  }

  /** Seconds from {@code time} to the database's now; null stays null. */
  private static Field<Double> age(Field<?> time) {
    return DSL.field("extract(epoch from now() - {0})::float8", Double.class, time);
  }
}
