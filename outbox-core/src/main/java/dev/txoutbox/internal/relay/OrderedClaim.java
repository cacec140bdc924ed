package dev.txoutbox.internal.relay;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.Ordering;
import dev.txoutbox.internal.OutboxConditions;
import dev.txoutbox.spi.OutboxMessage;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.Record4;
import org.jooq.ResultQuery;
import org.jooq.Select;
import org.jooq.SelectLimitPercentStep;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The claim of the per-aggregate orderings: runs of consecutive events, each starting at the first
 * pending event of its aggregate, found without reading the backlog.
 *
 * <p>One statement walks the aggregates with pending events in key order from a rotating cursor (a
 * loose index scan of {@code outbox_events_pending_aggregate_idx}: one probe per aggregate however
 * many events it holds) and, for each aggregate it reaches:
 *
 * <ol>
 *   <li>under {@link Ordering#PER_AGGREGATE}, finds the aggregate's first dead letter with one
 *       probe of {@code outbox_events_dead_aggregate_idx}: a dead letter before the head halts the
 *       aggregate, one after it ends the run;
 *   <li>locks the head, the aggregate's first pending event, with {@code SKIP LOCKED}, provided it
 *       is due. Whoever holds the head owns the aggregate: a head another relay holds, or one in
 *       backoff, costs this one probe and the aggregate is passed over;
 *   <li>locks the run that follows the head in {@code seq} order, without {@code SKIP LOCKED}:
 *       among polling relays only the owner of the head takes rows after it, so these locks are
 *       free, and skipping one would leave a gap in the run. A WAL relay beside it (outbox-wal) may
 *       hold one while it claims its own batch: then this waits, and if that claim waits for a row
 *       of this one, the server fails one of the two transactions (a deadlock, 40P01), which tries
 *       again.
 * </ol>
 *
 * Every aggregate visited costs one row of the budget, claimed or not, so one claim reads at most
 * {@code limit} aggregates and {@code limit} events: its cost does not depend on the backlog. The
 * cursor moves past the last aggregate visited, so the next claim goes on from there and every
 * aggregate gets its turn. A run ends at its first event that is not due; the events after it in
 * the same statement stay locked and untouched until the transaction ends.
 *
 * <p>The plan is pinned with settings local to the claim's transaction, so that stale or missing
 * statistics cannot turn a probe into a scan of the table.
 *
 * <p>Thread-safe: workers share the cursor.
 */
final class OrderedClaim {

  private static final Name HEADS = DSL.name("heads");
  private static final Field<String> HEAD_TYPE =
      DSL.field(DSL.name("heads", "aggregate_type"), String.class);
  private static final Field<String> HEAD_ID =
      DSL.field(DSL.name("heads", "aggregate_id"), String.class);
  private static final Field<UUID> HEAD_EVENT = DSL.field(DSL.name("heads", "id"), UUID.class);
  private static final Field<Long> HEAD_SEQ = DSL.field(DSL.name("heads", "seq"), Long.class);
  private static final Field<String> VISITED_TYPE = HEAD_TYPE.as("visited_type");
  private static final Field<String> VISITED_ID = HEAD_ID.as("visited_id");

  /** The columns before the claimed ones in the statement's records: the visited aggregate. */
  private static final int VISITED = 2;

  /** The alias of the claimed events in the statement. */
  private static final String CLAIMED = "claimed";

  /** The planner settings local to the claim's transaction; see {@link #pinPlan}. */
  static final List<String> PLAN_SETTINGS =
      List.of(
          "enable_seqscan",
          "enable_bitmapscan",
          "enable_sort",
          "enable_incremental_sort",
          "enable_hashjoin",
          "enable_mergejoin",
          "jit");

  /** Values that stand for a run's values in the statements rendered once. */
  private static final AggregateKey AFTER = new AggregateKey("\u0000after-type", "\u0000after-id");

  private static final AggregateKey UP_TO = new AggregateKey("\u0000upto-type", "\u0000upto-id");
  private static final int LIMIT = 987_654_321;
  private static final OffsetDateTime NOW =
      OffsetDateTime.of(1, 2, 3, 4, 5, 6, 7, java.time.ZoneOffset.UTC);

  private final Ordering ordering;
  private final AtomicReference<AggregateKey> cursor = new AtomicReference<>();
  private final Map<Walk, RenderedOnce> rendered = new ConcurrentHashMap<>();

  OrderedClaim(Ordering ordering) {
    if (ordering == Ordering.NONE) {
      throw new IllegalArgumentException("ordering must be per aggregate but was " + ordering);
    }
    this.ordering = ordering;
  }

  /**
   * Locks up to {@code limit} events, runs of each claimable aggregate, and reads them.
   *
   * @throws RuntimeException if a claimed row cannot be read; see {@link #claimRows}
   */
  Claimed<OutboxMessage> claim(DSLContext tx, int limit, OffsetDateTime now) {
    return claim(tx, limit, now, RelayStore.MESSAGE_COLUMNS, RelayStore::toMessage);
  }

  /** Locks the same events as {@link #claim} but reads only their ids, which cannot fail. */
  Claimed<ClaimedRow> claimRows(DSLContext tx, int limit, OffsetDateTime now) {
    return claim(
        tx,
        limit,
        now,
        List.of(OUTBOX_EVENTS.ID),
        (r, at) -> new ClaimedRow((UUID) r.get(at[0]), visited(r)));
  }

  /**
   * One walk of a claim: from {@code after} (exclusive; null for the first aggregate) up to {@code
   * upTo} (inclusive; null for the last), visiting at most {@code limit} aggregates, reading {@code
   * columns} of the claimed events.
   */
  record Walk(
      @Nullable AggregateKey after,
      @Nullable AggregateKey upTo,
      int limit,
      OffsetDateTime now,
      List<Field<?>> columns) {

    /** The walk's values, in a fixed order. */
    List<Object> values() {
      List<Object> values = new ArrayList<>(List.of(limit, now));
      if (after != null) {
        values.addAll(List.of(after.type(), after.id()));
      }
      if (upTo != null) {
        values.addAll(List.of(upTo.type(), upTo.id()));
      }
      return values;
    }

    /** A walk of the same shape with sentinel values, to render the statement from. */
    Walk sentinels() {
      return new Walk(
          after == null ? null : AFTER, upTo == null ? null : UP_TO, LIMIT, NOW, columns);
    }
  }

  /** The claim statement of a walk. */
  private ResultQuery<Record> statement(DSLContext tx, Walk walk) {
    AggregateKey after = walk.after();
    AggregateKey upTo = walk.upTo();
    int limit = walk.limit();
    Table<Record> claimed = DSL.lateral(runs(limit, walk.now(), walk.columns())).as(CLAIMED);
    List<Field<?>> select = new ArrayList<>(List.of(VISITED_TYPE, VISITED_ID));
    select.addAll(List.of(claimed.fields()));
    return tx.withRecursive(heads(after, upTo))
        .select(select)
        .from(DSL.table(HEADS))
        .leftJoin(claimed)
        .on(DSL.trueCondition())
        .limit(limit);
  }

  /**
   * Pins the plan of the claim to its index probes for the rest of the transaction: no sequential
   * or bitmap scan, no sort, no hash or merge join, no JIT compilation. Each probe then has one
   * index to use, whatever the statistics say, and a plan cached while the table was small stays
   * right when it grows.
   */
  static void pinPlan(DSLContext tx) {
    tx.select(PLAN_SETTINGS.stream().map(name -> RelayStore.setLocal(name, "off")).toList())
        .fetch();
  }

  private <T> Claimed<T> claim(
      DSLContext tx,
      int limit,
      OffsetDateTime now,
      List<Field<?>> columns,
      BiFunction<Record, int[], T> reader) {
    List<Field<?>> wanted = new ArrayList<>(new LinkedHashSet<>(columns));
    for (Field<?> f : List.of(OUTBOX_EVENTS.ID, OUTBOX_EVENTS.SEQ, OUTBOX_EVENTS.RETRY_AFTER)) {
      if (!wanted.contains(f)) {
        wanted.add(f);
      }
    }
    pinPlan(tx);
    AggregateKey start = cursor.get();
    List<Record> visited =
        new ArrayList<>(rendered(tx, new Walk(start, null, limit, now, wanted)).fetch());
    if (visited.size() < limit && start != null) {
      // The walk reached the last aggregate: go on from the first, up to where it began.
      visited.addAll(
          rendered(tx, new Walk(null, start, limit - visited.size(), now, wanted)).fetch());
    }
    boolean full = visited.size() == limit;
    if (!visited.isEmpty()) {
      cursor.set(visited(visited.get(visited.size() - 1)));
    }
    // Positions, not names: see RelayStore.toMessage.
    int[] at = columns.stream().mapToInt(c -> VISITED + wanted.indexOf(c)).toArray();
    int id = VISITED + wanted.indexOf(OUTBOX_EVENTS.ID);
    int seq = VISITED + wanted.indexOf(OUTBOX_EVENTS.SEQ);
    int retryAfter = VISITED + wanted.indexOf(OUTBOX_EVENTS.RETRY_AFTER);
    record Row<E>(long seq, E event) {}
    List<Row<T>> events = new ArrayList<>();
    Set<AggregateKey> ended = new HashSet<>();
    for (Record r : visited) {
      if (r.get(id) == null) {
        continue; // blocked, halted, or owned by another relay
      }
      AggregateKey aggregate = visited(r);
      OffsetDateTime after = (OffsetDateTime) r.get(retryAfter);
      if (ended.contains(aggregate) || (after != null && after.isAfter(now))) {
        ended.add(aggregate); // a run ends at its first event that is not due
        continue;
      }
      events.add(new Row<>((Long) r.get(seq), reader.apply(r, at)));
    }
    events.sort(Comparator.comparingLong(Row::seq));
    return new Claimed<>(events.stream().map(Row::event).toList(), full);
  }

  /**
   * The statement of {@code walk} as the claim runs it: rendered once per shape, with the walk's
   * values bound. Exposed to the plan tests.
   */
  ResultQuery<Record> rendered(DSLContext tx, Walk walk) {
    Walk shape = walk.sentinels();
    return rendered
        .computeIfAbsent(shape, s -> new RenderedOnce(tx, statement(tx, s), s.values()))
        .bind(tx, walk.values());
  }

  /** The aggregate a record of the claim visited: its first two columns. */
  private static AggregateKey visited(Record r) {
    return new AggregateKey((String) r.get(0), (String) r.get(1));
  }

  /**
   * The aggregates with pending events in key order, each with its head: a recursive walk of the
   * ordering index, each step one probe for the first pending event after the previous aggregate.
   */
  private static CommonTableExpression<Record4<String, String, UUID, Long>> heads(
      @Nullable AggregateKey after, @Nullable AggregateKey upTo) {
    Condition until =
        upTo == null
            ? DSL.noCondition()
            : DSL.row(OUTBOX_EVENTS.AGGREGATE_TYPE, OUTBOX_EVENTS.AGGREGATE_ID)
                .le(upTo.type(), upTo.id());
    Condition from =
        after == null
            ? DSL.noCondition()
            : DSL.row(OUTBOX_EVENTS.AGGREGATE_TYPE, OUTBOX_EVENTS.AGGREGATE_ID)
                .gt(after.type(), after.id());
    Table<Record4<String, String, UUID, Long>> next =
        DSL.lateral(
                firstPending(
                    DSL.row(OUTBOX_EVENTS.AGGREGATE_TYPE, OUTBOX_EVENTS.AGGREGATE_ID)
                        .gt(HEAD_TYPE, HEAD_ID)
                        .and(until)))
            .as("next");
    Select<Record4<String, String, UUID, Long>> step =
        DSL.select(
                next.field(OUTBOX_EVENTS.AGGREGATE_TYPE),
                next.field(OUTBOX_EVENTS.AGGREGATE_ID),
                next.field(OUTBOX_EVENTS.ID),
                next.field(OUTBOX_EVENTS.SEQ))
            .from(DSL.table(HEADS))
            .crossJoin(next);
    return HEADS
        .fields("aggregate_type", "aggregate_id", "id", "seq")
        .as(firstPending(from.and(until)).unionAll(step));
  }

  /** The first pending event in index order that meets {@code where}: one index probe. */
  private static SelectLimitPercentStep<Record4<String, String, UUID, Long>> firstPending(
      Condition where) {
    return DSL.select(
            OUTBOX_EVENTS.AGGREGATE_TYPE,
            OUTBOX_EVENTS.AGGREGATE_ID,
            OUTBOX_EVENTS.ID,
            OUTBOX_EVENTS.SEQ)
        .from(OUTBOX_EVENTS)
        .where(OutboxConditions.PENDING)
        .and(where)
        .orderBy(OUTBOX_EVENTS.AGGREGATE_TYPE, OUTBOX_EVENTS.AGGREGATE_ID, OUTBOX_EVENTS.SEQ)
        .limit(1);
  }

  /**
   * For the head of the walk's current aggregate: the head locked if the aggregate can be claimed,
   * then its run, locked. No row when the aggregate is blocked or another relay owns it.
   */
  private Select<Record> runs(int limit, OffsetDateTime now, List<Field<?>> columns) {
    // Pending, written so that it does not imply the predicate of the partial indexes: on a table
    // without statistics the planner takes them for nearly empty and would rather scan one of
    // them whole, filtering on the id, than probe the primary key.
    Condition head =
        OUTBOX_EVENTS
            .ID
            .eq(HEAD_EVENT)
            .and(DSL.coalesce(OUTBOX_EVENTS.PROCESSED_AT, OUTBOX_EVENTS.DEAD_LETTERED_AT).isNull())
            .and(OutboxConditions.timeHasCome(now));
    return switch (ordering) {
      case PER_AGGREGATE_SKIP_DEAD_LETTERS -> {
        Table<?> owned = DSL.lateral(lockHead(head)).as("owned");
        Table<Record> run =
            DSL.lateral(lockRun(DSL.inline(Long.MAX_VALUE), limit, columns)).as("run");
        yield DSL.select(run.fields()).from(owned).crossJoin(run);
      }
      case PER_AGGREGATE -> {
        // LIMIT keeps the planner from inlining the probe into each of its two uses.
        Table<?> halt = DSL.lateral(DSL.select(firstDeadLetter().as("stop")).limit(1)).as("halt");
        Field<Long> stop = halt.field("stop", Long.class);
        Table<?> owned =
            DSL.lateral(lockHead(head.and(stop.isNull().or(stop.gt(HEAD_SEQ))))).as("owned");
        Table<Record> run =
            DSL.lateral(lockRun(DSL.coalesce(stop, DSL.inline(Long.MAX_VALUE)), limit, columns))
                .as("run");
        yield DSL.select(run.fields()).from(halt).crossJoin(owned).crossJoin(run);
      }
      case NONE -> throw new IllegalStateException("ordering must be per aggregate but was NONE");
    };
  }

  /** The seq of the aggregate's first dead letter, or null: one probe of the dead-letter index. */
  private static Field<Long> firstDeadLetter() {
    return DSL.field(
        DSL.select(OUTBOX_EVENTS.SEQ)
            .from(OUTBOX_EVENTS)
            .where(OUTBOX_EVENTS.AGGREGATE_TYPE.eq(HEAD_TYPE))
            .and(OUTBOX_EVENTS.AGGREGATE_ID.eq(HEAD_ID))
            .and(OutboxConditions.DEAD_LETTER)
            .orderBy(OUTBOX_EVENTS.AGGREGATE_TYPE, OUTBOX_EVENTS.AGGREGATE_ID, OUTBOX_EVENTS.SEQ)
            .limit(1));
  }

  /** The head, locked unless another relay holds it. */
  private static Select<?> lockHead(Condition head) {
    return DSL.select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).where(head).forUpdate().skipLocked();
  }

  /**
   * The run from the head on, in seq order, up to {@code stop} (exclusive), locked. Its bounds are
   * written for two reasons. The aggregate id and seq are bounded by row comparisons rather than
   * equalities: with the id equal to a value, the planner may read the run in seq order from {@code
   * outbox_events_pending_idx}, filtering out other aggregates' events all the way through the
   * backlog, since seq order is then the requested order. The type stays an equality: a btree scan
   * stops where the first member of a row comparison fails, so the scan ends at the next aggregate;
   * with the type in the row comparison as well, a run shorter than the limit would read the index
   * to its end.
   */
  private static Select<Record> lockRun(Field<Long> stop, int limit, List<Field<?>> columns) {
    return DSL.select(columns)
        .from(OUTBOX_EVENTS)
        .where(OutboxConditions.PENDING)
        .and(OUTBOX_EVENTS.AGGREGATE_TYPE.eq(HEAD_TYPE))
        .and(DSL.row(OUTBOX_EVENTS.AGGREGATE_ID, OUTBOX_EVENTS.SEQ).ge(HEAD_ID, HEAD_SEQ))
        .and(DSL.row(OUTBOX_EVENTS.AGGREGATE_ID, OUTBOX_EVENTS.SEQ).lt(HEAD_ID, stop))
        .orderBy(OUTBOX_EVENTS.AGGREGATE_TYPE, OUTBOX_EVENTS.AGGREGATE_ID, OUTBOX_EVENTS.SEQ)
        .limit(limit)
        .forUpdate();
  }

  @Override
  public String toString() {
    return "OrderedClaim[" + Objects.toString(ordering) + "]";
  }
}
