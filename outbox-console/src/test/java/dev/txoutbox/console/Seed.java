package dev.txoutbox.console;

import dev.txoutbox.testing.OutboxTestDatabase;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rows written straight into a test's outbox table, in any state, with ids that are UUIDv7 of their
 * creation time (as the writer's), so that newest id is newest event.
 */
final class Seed {

  private static final AtomicLong LAST_MILLIS = new AtomicLong();

  private final OutboxTestDatabase db;

  Seed(OutboxTestDatabase db) {
    this.db = db;
  }

  /** A UUIDv7 for now, each later than the last. */
  static UUID newId() {
    long millis = LAST_MILLIS.updateAndGet(last -> Math.max(last + 1, System.currentTimeMillis()));
    long high = (millis << 16) | 0x7000L | ThreadLocalRandom.current().nextInt(0x1000);
    long low = 0x8000_0000_0000_0000L | (ThreadLocalRandom.current().nextLong() >>> 2);
    return new UUID(high, low);
  }

  /** A pending event, due now. */
  UUID pending(String eventType, String aggregateId, String payload) {
    return insert(eventType, aggregateId, payload, "{}", 0, null, null, null, null);
  }

  /** A pending event delayed by a day. */
  UUID delayed(String eventType, String aggregateId) {
    return insert(
        eventType,
        aggregateId,
        "{}",
        "{}",
        0,
        OffsetDateTime.now(ZoneOffset.UTC).plusDays(1),
        null,
        null,
        null);
  }

  /** A dead letter with {@code error}. */
  UUID dead(String eventType, String aggregateId, String error) {
    return insert(
        eventType,
        aggregateId,
        "{}",
        "{}",
        5,
        null,
        null,
        OffsetDateTime.now(ZoneOffset.UTC),
        error);
  }

  /** A published event. */
  UUID processed(String eventType, String aggregateId) {
    return insert(
        eventType,
        aggregateId,
        "{}",
        "{}",
        0,
        null,
        OffsetDateTime.now(ZoneOffset.UTC),
        null,
        null);
  }

  UUID insert(
      String eventType,
      String aggregateId,
      String payload,
      String headers,
      int attempts,
      OffsetDateTime retryAfter,
      OffsetDateTime processedAt,
      OffsetDateTime deadLetteredAt,
      String lastError) {
    UUID id = newId();
    db.dsl()
        .execute(
            "insert into "
                + db.schema()
                + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload, headers,"
                + " attempts, created_at, retry_after, processed_at, dead_lettered_at, last_error)"
                + " values (?, 'order', ?, ?, ?::jsonb, ?::jsonb, ?, ?::timestamptz, ?::timestamptz,"
                + " ?::timestamptz, ?::timestamptz, ?)",
            id,
            aggregateId,
            eventType,
            payload,
            headers,
            attempts,
            Instant.ofEpochMilli(id.getMostSignificantBits() >>> 16).atOffset(ZoneOffset.UTC),
            retryAfter,
            processedAt,
            deadLetteredAt,
            lastError);
    return id;
  }

  /**
   * A relay's heartbeat row as a relay writes it: its last beat {@code beatAgeSeconds} ago on the
   * database's clock, beating every {@code intervalMillis}, its last cycle {@code cycleAgeSeconds}
   * ago (or none), stopped or not.
   */
  void relay(
      String name,
      String kind,
      int intervalMillis,
      long beatAgeSeconds,
      Long cycleAgeSeconds,
      boolean stopped,
      String settings) {
    db.dsl()
        .execute(
            "insert into "
                + db.schema()
                + ".outbox_relays (id, relay_name, kind, host, pid, settings, beat_interval_ms,"
                + " started_at, last_beat_at, last_cycle_at, stopped_at) values (?, ?, ?,"
                + " 'orders-7f9c', 4242, ?, ?, now() - interval '2 hours',"
                + " now() - make_interval(secs => ?), now() - make_interval(secs => ?),"
                + " case when ? then now() - make_interval(secs => ?) end)",
            UUID.randomUUID(),
            name,
            kind,
            settings,
            intervalMillis,
            (double) beatAgeSeconds,
            cycleAgeSeconds == null ? null : (double) cycleAgeSeconds,
            stopped,
            (double) beatAgeSeconds);
  }

  /** Deletes every heartbeat row. */
  void noRelays() {
    db.execute("delete from " + db.schema() + ".outbox_relays");
  }

  long count(String where) {
    Object n =
        db.dsl()
            .fetchValue("select count(*) from " + db.schema() + ".outbox_events where " + where);
    return ((Number) n).longValue();
  }
}
