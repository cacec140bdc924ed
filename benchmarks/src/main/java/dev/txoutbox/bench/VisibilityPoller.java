package dev.txoutbox.bench;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.schema.OutboxSchema;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BinaryOperator;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record4;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A poller of {@link CommitOrderBenchmark}: every interval it claims the pending events in {@code
 * seq} order (one {@code UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING}, as a
 * relay's claim and mark), with or without the visibility horizon, and records when it first saw
 * each event and whether it saw an event after a later one of the same aggregate.
 *
 * <p>The horizon is {@code xid < pg_snapshot_xmin(pg_current_snapshot())} on the prototype's {@code
 * xid xid8} column: only rows whose transaction is older than every transaction running when the
 * claim's snapshot was taken.
 */
final class VisibilityPoller {

  private static final Logger log = LoggerFactory.getLogger(VisibilityPoller.class);

  /**
   * Rows per claim: more than a case ever has pending (a 3 s stall at 1,000 events/s), so a claim
   * never leaves a visible row for the next one and the order checks see visibility alone.
   */
  private static final int BATCH = 20_000;

  // jOOQ has no xid8 type and no snapshot functions: the column and
  // pg_snapshot_xmin(pg_current_snapshot()) are a plain field and plain functions typed OTHER.
  private static final Field<Object> XID = DSL.field(DSL.name("xid"), SQLDataType.OTHER);
  private static final Field<Object> HORIZON =
      DSL.function(
          "pg_snapshot_xmin",
          SQLDataType.OTHER,
          DSL.function("pg_current_snapshot", SQLDataType.OTHER));

  private static final Comparator<long[]> XID_SEQ =
      Comparator.<long[]>comparingLong(k -> k[0]).thenComparingLong(k -> k[1]);
  private static final BinaryOperator<long[]> LATER = BinaryOperator.maxBy(XID_SEQ);

  private final DSLContext dsl;
  private final Duration interval;
  private final Condition claimable;
  private final Field<String> xidText;
  private final Thread thread;
  private volatile boolean stopped;

  /** {@code System.nanoTime()} when the poller's claim first returned each event, by event id. */
  final Map<UUID, Long> claimedAt = new ConcurrentHashMap<>();

  /** Per aggregate: the greatest {@code seq} seen, and the greatest {@code (xid, seq)}. */
  private final Map<String, Long> lastSeq = new HashMap<>();

  private final Map<String, long[]> lastXidSeq = new HashMap<>();
  private volatile long seqViolations;
  private volatile long xidViolations;
  private volatile long fullClaims;

  /**
   * @param horizon claim only rows below the visibility horizon
   * @param hasXid the table has the prototype's {@code xid} column (then the {@code (xid, seq)}
   *     order is checked too)
   */
  VisibilityPoller(
      DataSource dataSource, String schema, boolean horizon, boolean hasXid, Duration interval) {
    this.dsl =
        DSL.using(dataSource, SQLDialect.POSTGRES, OutboxSchema.withSchema(new Settings(), schema));
    this.interval = interval;
    Condition pending =
        OUTBOX_EVENTS.PROCESSED_AT.isNull().and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNull());
    this.claimable = horizon ? pending.and(XID.lt(HORIZON)) : pending;
    this.xidText = hasXid ? XID.cast(SQLDataType.VARCHAR) : DSL.inline((String) null);
    this.thread = new Thread(this::loop, "commit-order-poller");
  }

  void start() {
    thread.start();
  }

  /** Stops polling once the current poll is done. */
  void stop() throws InterruptedException {
    stopped = true;
    thread.join(TimeUnit.SECONDS.toMillis(30));
  }

  /** Events seen after a later {@code seq} of their aggregate was already seen. */
  long seqViolations() {
    return seqViolations;
  }

  /** Events seen after a later {@code (xid, seq)} of their aggregate was already seen. */
  long xidViolations() {
    return xidViolations;
  }

  /** Claims that came back full, so the order checks may have seen the claim's limit too. */
  long fullClaims() {
    return fullClaims;
  }

  private void loop() {
    long next = System.nanoTime();
    while (!stopped) {
      try {
        while (claim() == BATCH) {
          // a full batch: claim again at once
        }
      } catch (RuntimeException e) {
        log.warn("poll failed", e);
      }
      next += interval.toNanos();
      long wait = next - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      } else {
        next = System.nanoTime();
      }
    }
  }

  /** One claim; returns how many events it took. */
  private int claim() {
    List<Record4<UUID, String, Long, String>> rows =
        dsl.update(OUTBOX_EVENTS)
            .set(OUTBOX_EVENTS.PROCESSED_AT, DSL.currentOffsetDateTime())
            .where(
                OUTBOX_EVENTS.ID.in(
                    DSL.select(OUTBOX_EVENTS.ID)
                        .from(OUTBOX_EVENTS)
                        .where(claimable)
                        .orderBy(OUTBOX_EVENTS.SEQ)
                        .limit(BATCH)
                        .forUpdate()
                        .skipLocked()))
            .returningResult(
                OUTBOX_EVENTS.ID, OUTBOX_EVENTS.AGGREGATE_ID, OUTBOX_EVENTS.SEQ, xidText)
            .fetch();
    long now = System.nanoTime();
    if (rows.size() == BATCH) {
      fullClaims++;
    }
    // Compared with what earlier polls saw: events claimed together were visible together.
    Map<String, Long> batchSeq = new HashMap<>();
    Map<String, long[]> batchXidSeq = new HashMap<>();
    for (Record4<UUID, String, Long, String> row : rows) {
      claimedAt.put(row.value1(), now);
      String aggregate = row.value2();
      long seq = row.value3();
      Long seen = lastSeq.get(aggregate);
      if (seen != null && seen > seq) {
        seqViolations++;
      }
      batchSeq.merge(aggregate, seq, Math::max);
      if (row.value4() != null) {
        long[] xidSeq = {Long.parseLong(row.value4()), seq};
        long[] seenXidSeq = lastXidSeq.get(aggregate);
        if (seenXidSeq != null && XID_SEQ.compare(seenXidSeq, xidSeq) > 0) {
          xidViolations++;
        }
        batchXidSeq.merge(aggregate, xidSeq, LATER);
      }
    }
    batchSeq.forEach((aggregate, seq) -> lastSeq.merge(aggregate, seq, Math::max));
    batchXidSeq.forEach((aggregate, xidSeq) -> lastXidSeq.merge(aggregate, xidSeq, LATER));
    return rows.size();
  }
}
