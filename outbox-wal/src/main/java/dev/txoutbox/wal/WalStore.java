package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.spi.OutboxMessage;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.ResultQuery;
import org.jooq.Row3;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The WAL relay's statements on the outbox table: the same columns and outcomes as the polling
 * relay's, over the generated model.
 */
final class WalStore {

  private WalStore() {}

  /**
   * Settings local to the batch's transaction, in one statement: {@code synchronous_commit} off
   * (what the relay records is safe to lose in a crash of the server: the rows stay pending and the
   * polling relay publishes them again, duplicates, never a loss) and, for the per-aggregate
   * orderings' check, the polling relay's pinned plan ({@link RelayKernel#planSettings()}): the
   * check's probes stay index probes whatever the statistics say. In every ordering {@code
   * enable_seqscan} off: each statement of the batch finds its rows by id, and a sequential scan,
   * which a table without statistics (new, truncated, or with autovacuum off) or a plan cached
   * while the table was small can get, reads the whole outbox for every batch. And {@code
   * lock_timeout}: a claim waiting for rows another relay holds gives up after it, so that the
   * relay can tell the server it is alive before it claims again. No bind values; the relay runs it
   * rendered once ({@link WalStatements}).
   */
  static ResultQuery<Record> settingsQuery(DSLContext tx, Ordering ordering, Duration lockTimeout) {
    List<Field<?>> set = new ArrayList<>();
    set.add(RelayKernel.setLocal("synchronous_commit", "off"));
    set.add(RelayKernel.setLocal("lock_timeout", lockTimeout.toMillis() + "ms"));
    if (ordering == Ordering.NONE) {
      set.add(RelayKernel.seqScansOff());
    } else {
      // enable_seqscan among them.
      RelayKernel.planSettings().forEach(name -> set.add(RelayKernel.setLocal(name, "off")));
    }
    return tx.select(set);
  }

  /**
   * {@link CompletionMode#MARK_PROCESSED}'s claim: locks those of {@code ids} that are still
   * pending and due, marks them processed at {@code now} and returns their ids, in one statement,
   * so that a published batch needs no statement after the publish (a failure clears the mark
   * again: {@link #fail}, {@link #defer}, {@link #unmark}). The relay runs it rendered once ({@link
   * WalStatements}).
   *
   * <p>A row another relay holds is waited for, not skipped: once that relay commits or rolls back,
   * the row's latest version decides. So every id is either locked here or was published,
   * dead-lettered or postponed by the other relay, and the relay never confirms past an event whose
   * fate it does not know. The polling relay never waits for a row in the unordered claim ({@code
   * SKIP LOCKED}); the ordered claim waits for the run after a head it owns, so the two can
   * deadlock, which PostgreSQL breaks by failing one transaction (40P01): the WAL relay then
   * processes its batch again ({@link #claimSeenQuery} waits the same way).
   */
  static ResultQuery<Record1<UUID>> claimQuery(DSLContext tx, UUID[] ids, OffsetDateTime now) {
    return tx.update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.PROCESSED_AT, now)
        .where(due(ids))
        .returningResult(OUTBOX_EVENTS.ID);
  }

  /**
   * {@link CompletionMode#DELETE}'s claim: locks those of {@code ids} still pending and due,
   * waiting for rows another relay holds, and tells in the same snapshot which of {@code ids} were
   * there at all: each id seen maps to whether it was locked. A row the polling relay deleted while
   * the claim waited for it is seen and not locked (finished), not missing. Its records: each id
   * seen, and the same id where it was locked, else null. The relay runs it rendered once ({@link
   * WalStatements}).
   */
  static ResultQuery<Record2<UUID, UUID>> claimSeenQuery(DSLContext tx, UUID[] ids) {
    CommonTableExpression<Record1<UUID>> locked =
        DSL.name("locked")
            .fields("id")
            .as(DSL.select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).where(due(ids)).forUpdate());
    Table<?> seen = OUTBOX_EVENTS.as("seen");
    Field<UUID> seenId = seen.field(OUTBOX_EVENTS.ID);
    Field<UUID> lockedId = locked.field("id", UUID.class);
    // Both read the statement's one snapshot; the join reads every locked row.
    return tx.with(locked)
        .select(seenId, lockedId)
        .from(seen)
        .leftJoin(locked)
        .on(lockedId.eq(seenId))
        .where(seenId.eq(DSL.any(RelayKernel.uuids(ids))));
  }

  /**
   * Those of {@code ids} still pending and due now. The three times are tested as one coalesce, not
   * as the three {@code IS NULL} of {@code outbox_events_ready_idx}'s predicate, so that the
   * planner cannot take that index for these rows: without statistics it estimates the index nearly
   * empty and would walk all of it, testing every pending row against the ids.
   */
  private static Condition due(UUID[] ids) {
    return OUTBOX_EVENTS
        .ID
        .eq(DSL.any(RelayKernel.uuids(ids)))
        .and(
            DSL.coalesce(
                    OUTBOX_EVENTS.PROCESSED_AT,
                    OUTBOX_EVENTS.DEAD_LETTERED_AT,
                    OUTBOX_EVENTS.RETRY_AFTER)
                .isNull());
  }

  /** The highest {@code seq} of the outbox now, or 0 when it is empty. */
  static long lastSeq(DSLContext dsl) {
    Long last = dsl.select(DSL.max(OUTBOX_EVENTS.SEQ)).from(OUTBOX_EVENTS).fetchOne().value1();
    return last == null ? 0 : last;
  }

  /**
   * Up to {@code limit} events that are pending and due, with {@code after < seq <= upTo}, in
   * {@code seq} order: a page of the backlog from before the slot existed. One probe of {@code
   * outbox_events_pending_idx}.
   *
   * @throws RuntimeException if a row cannot be read
   */
  static List<OutboxMessage> backlog(DSLContext dsl, long after, long upTo, int limit) {
    return dsl.select(RelayKernel.messageColumns())
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.PROCESSED_AT.isNull())
        .and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNull())
        .and(OUTBOX_EVENTS.RETRY_AFTER.isNull())
        .and(OUTBOX_EVENTS.SEQ.gt(after))
        .and(OUTBOX_EVENTS.SEQ.le(upTo))
        .orderBy(OUTBOX_EVENTS.SEQ)
        .limit(limit)
        .fetch(RelayKernel::toMessage);
  }

  /**
   * Clears the processed mark {@link #claimQuery} set on events that are not published after all.
   */
  static void unmark(DSLContext tx, List<UUID> ids) {
    if (ids.isEmpty()) {
      return;
    }
    unmarkQuery(tx, ids.toArray(UUID[]::new)).execute();
  }

  /** The statement of {@link #unmark}, for the plan tests. */
  static Query unmarkQuery(DSLContext tx, UUID[] ids) {
    return tx.update(OUTBOX_EVENTS)
        .setNull(OUTBOX_EVENTS.PROCESSED_AT)
        .where(OUTBOX_EVENTS.ID.eq(DSL.any(RelayKernel.uuids(ids))));
  }

  /**
   * Those of {@code ids} whose rows this transaction can see, pending or not, locked or not: an id
   * of a committed insert that is missing here was deleted, or its commit is not visible yet. The
   * relay runs it rendered once ({@link WalStatements}).
   */
  static ResultQuery<Record1<UUID>> visibleQuery(DSLContext tx, UUID[] ids) {
    return tx.select(OUTBOX_EVENTS.ID)
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.ID.eq(DSL.any(RelayKernel.uuids(ids))));
  }

  /**
   * The transactions still in progress for this statement's snapshot, by their low 32 bits (the
   * {@code xid} that {@code pgoutput} sends): among them a transaction the stream delivered whose
   * commit is not visible yet, since the committing session leaves the server's list of running
   * transactions only once it makes its commit visible. The ids of a snapshot span less than 2^31,
   * so their low 32 bits tell them apart.
   */
  static Set<Integer> runningXids(DSLContext tx) {
    // pg_current_snapshot() (PostgreSQL 13) has no jOOQ function: plain SQL. Its text form is
    // xmin:xmax:xip1,xip2,… with the running ids last.
    String snapshot =
        tx.select(DSL.field("pg_current_snapshot()::text", String.class)).fetchSingle().value1();
    return parseRunning(snapshot);
  }

  /** The running ids of a snapshot's text form, by their low 32 bits. */
  static Set<Integer> parseRunning(String snapshot) {
    String[] parts = snapshot.split(":", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException("not a snapshot: " + snapshot);
    }
    Set<Integer> running = new HashSet<>();
    if (!parts[2].isEmpty()) {
      for (String xid : parts[2].split(",")) {
        running.add((int) Long.parseLong(xid));
      }
    }
    return running;
  }

  /** An aggregate: its type and id. */
  record Aggregate(String type, String id) {
    static Aggregate of(OutboxMessage m) {
      return new Aggregate(m.aggregateType(), m.aggregateId());
    }
  }

  /**
   * The aggregates of {@code batch} that the per-aggregate orderings must not publish now: those
   * with an event before their last event in the batch, in {@code seq} order, that is not in the
   * batch and that the polling relay would publish or stop at first. That is a pending event (due,
   * delayed by {@code notBefore}, in backoff or locked by another relay: whether before the
   * aggregate's first event in the batch or between two of them) and, under {@link
   * Ordering#PER_AGGREGATE}, a dead letter. Such an aggregate is left whole to the polling relay,
   * which publishes its run in order. One statement; each aggregate costs one range probe of {@code
   * outbox_events_pending_aggregate_idx} (and of {@code outbox_events_dead_aggregate_idx}) where
   * the ordering indexes exist, which reads at most its events of the batch besides.
   *
   * @throws IllegalArgumentException if {@code ordering} is {@link Ordering#NONE}
   */
  static Set<Aggregate> blocked(DSLContext tx, List<OutboxMessage> batch, Ordering ordering) {
    if (batch.isEmpty()) {
      return Set.of();
    }
    return new HashSet<>(
        blockedQuery(tx, batch, ordering).fetch(r -> new Aggregate(r.value1(), r.value2())));
  }

  /** The statement of {@link #blocked}, for the plan tests. */
  static ResultQuery<Record2<String, String>> blockedQuery(
      DSLContext tx, List<OutboxMessage> batch, Ordering ordering) {
    Map<Aggregate, Long> last = new LinkedHashMap<>();
    for (OutboxMessage m : batch) {
      last.merge(Aggregate.of(m), m.sequence(), Math::max);
    }
    @SuppressWarnings({"unchecked", "rawtypes"})
    Row3<String, String, Long>[] rows = new Row3[last.size()];
    int i = 0;
    for (Map.Entry<Aggregate, Long> e : last.entrySet()) {
      rows[i++] =
          DSL.row(
              DSL.val(e.getKey().type(), OUTBOX_EVENTS.AGGREGATE_TYPE),
              DSL.val(e.getKey().id(), OUTBOX_EVENTS.AGGREGATE_ID),
              DSL.val(e.getValue(), OUTBOX_EVENTS.SEQ));
    }
    UUID[] sent = batch.stream().map(OutboxMessage::id).toArray(UUID[]::new);
    Table<Record3<String, String, Long>> heads =
        DSL.values(rows).as("heads", "aggregate_type", "aggregate_id", "max_seq");
    Field<String> type = heads.field("aggregate_type", String.class);
    Field<String> id = heads.field("aggregate_id", String.class);
    Field<Long> maxSeq = heads.field("max_seq", Long.class);
    // Written as the ordering indexes' predicates, so that each probe can use one of them; the
    // batch's own events are in the probed range and are filtered out.
    Condition before =
        OUTBOX_EVENTS
            .AGGREGATE_TYPE
            .eq(type)
            .and(OUTBOX_EVENTS.AGGREGATE_ID.eq(id))
            .and(OUTBOX_EVENTS.SEQ.lt(maxSeq));
    Condition pending =
        exists(
            DSL.selectOne()
                .from(OUTBOX_EVENTS)
                .where(before)
                .and(OUTBOX_EVENTS.PROCESSED_AT.isNull())
                .and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNull())
                .and(OUTBOX_EVENTS.ID.ne(DSL.all(RelayKernel.uuids(sent)))));
    Condition blocking =
        switch (ordering) {
          case PER_AGGREGATE ->
              pending.or(
                  exists(
                      DSL.selectOne()
                          .from(OUTBOX_EVENTS)
                          .where(before)
                          .and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull())));
          case PER_AGGREGATE_SKIP_DEAD_LETTERS -> pending;
          case NONE ->
              throw new IllegalArgumentException(
                  "ordering must be per aggregate but was " + ordering);
        };
    return tx.select(type, id).from(heads).where(blocking);
  }

  /**
   * {@code EXISTS (subquery)}, spelled as a template because jOOQ's {@code DSL.exists(Select)} is
   * gone from jOOQ 3.21 (it takes a {@code TableLike} there): a jar built with 3.19 that called it
   * failed with {@code NoSuchMethodError} on a user's 3.21 (it-compat's {@code JooqRuntimeTest}).
   */
  static Condition exists(Select<?> subquery) {
    return DSL.condition("exists ({0})", subquery);
  }

  /**
   * Completes the published events {@code ids} as the polling relay does: in {@link
   * CompletionMode#DELETE} deletes them; in {@link CompletionMode#MARK_PROCESSED} sets their {@code
   * processed_at} to {@code now}, the time the publisher returned, over the claim's mark, so that
   * it tells when the broker took the event, not when the batch was claimed. The relay runs it
   * rendered once ({@link WalStatements}).
   */
  static Query completeQuery(DSLContext tx, CompletionMode mode, UUID[] ids, OffsetDateTime now) {
    Condition these = OUTBOX_EVENTS.ID.eq(DSL.any(RelayKernel.uuids(ids)));
    return switch (mode) {
      case DELETE -> tx.deleteFrom(OUTBOX_EVENTS).where(these);
      case MARK_PROCESSED ->
          tx.update(OUTBOX_EVENTS).set(OUTBOX_EVENTS.PROCESSED_AT, now).where(these);
    };
  }

  /**
   * Records one failed attempt: attempts + 1, the error, and the next attempt's time or the
   * dead-letter time; clears the processed mark of {@link #claimQuery}.
   */
  static void fail(
      DSLContext tx,
      UUID id,
      @Nullable OffsetDateTime retryAfter,
      String error,
      @Nullable OffsetDateTime deadLetteredAt) {
    tx.update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.ATTEMPTS, OUTBOX_EVENTS.ATTEMPTS.plus(1))
        .set(OUTBOX_EVENTS.RETRY_AFTER, retryAfter)
        .set(OUTBOX_EVENTS.LAST_ERROR, error)
        .set(OUTBOX_EVENTS.DEAD_LETTERED_AT, deadLetteredAt)
        .setNull(OUTBOX_EVENTS.PROCESSED_AT)
        .where(OUTBOX_EVENTS.ID.eq(id))
        .execute();
  }

  /**
   * Postpones events without counting an attempt, for the polling relay to publish after; clears
   * the processed mark of {@link #claimQuery}.
   */
  static void defer(DSLContext tx, List<UUID> ids, OffsetDateTime until) {
    if (ids.isEmpty()) {
      return;
    }
    deferQuery(tx, ids.toArray(UUID[]::new), until).execute();
  }

  /** The statement of {@link #defer}, for the plan tests. */
  static Query deferQuery(DSLContext tx, UUID[] ids, OffsetDateTime until) {
    return tx.update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.RETRY_AFTER, until)
        .setNull(OUTBOX_EVENTS.PROCESSED_AT)
        .where(OUTBOX_EVENTS.ID.eq(DSL.any(RelayKernel.uuids(ids))));
  }
}
