package dev.txoutbox.internal.admin;

import static dev.txoutbox.internal.OutboxConditions.DEAD_LETTER;
import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.DeadLetter;
import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.DeadLetterSelector;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.TableUpkeep;
import dev.txoutbox.internal.OutboxConditions;
import dev.txoutbox.internal.json.Json;
import dev.txoutbox.schema.OutboxTables;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.OrderField;
import org.jooq.Record;
import org.jooq.Record6;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/** The {@link OutboxAdmin} over jOOQ; every bulk change in bounded chunks. */
public final class DefaultOutboxAdmin implements OutboxAdmin {

  /**
   * The parts of an error that vary, in PostgreSQL's regular expressions: quoted values of two
   * characters or more whose quote opens after a blank, a bracket, {@code =} or {@code :} and
   * closes before a non-alphanumeric (so quoted punctuation such as {@code ','} and apostrophes
   * such as {@code can't} stay), UUIDs, hex numbers, and decimal numbers not glued to a letter
   * ({@code 404} and {@code orders-17} vary; {@code utf8} and {@code s3} do not).
   */
  private static final String VARIABLE_PARTS =
      "(?<![^\\s(\\[{=:])'[^'\\n]{2,}'(?![[:alnum:]])"
          + "|(?<![^\\s(\\[{=:])\"[^\"\\n]{2,}\"(?![[:alnum:]])"
          + "|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
          + "|0x[0-9a-fA-F]+|(?<![[:alpha:]_])[0-9]+";

  /** Dead letters are walked by id. */
  private static final Field<?>[] BY_ID = {OUTBOX_EVENTS.ID};

  /** Processed rows by the time they were processed, along the index the cleanup uses. */
  private static final Field<?>[] BY_PROCESSED_AT = {OUTBOX_EVENTS.PROCESSED_AT, OUTBOX_EVENTS.ID};

  /** The columns a dead letter shows that the server can always send: all but the two jsonb. */
  private static final Field<?>[] STATE_COLUMNS = {
    OUTBOX_EVENTS.ID,
    OUTBOX_EVENTS.AGGREGATE_TYPE,
    OUTBOX_EVENTS.AGGREGATE_ID,
    OUTBOX_EVENTS.EVENT_TYPE,
    OUTBOX_EVENTS.ATTEMPTS,
    OUTBOX_EVENTS.CREATED_AT,
    OUTBOX_EVENTS.DEAD_LETTERED_AT,
    OUTBOX_EVENTS.LAST_ERROR
  };

  /** Every column a dead letter shows. */
  private static final Field<?>[] EVERY_COLUMN =
      Stream.concat(
              Stream.of(STATE_COLUMNS), Stream.of(OUTBOX_EVENTS.PAYLOAD, OUTBOX_EVENTS.HEADERS))
          .toArray(Field<?>[]::new);

  /** The newest dead letters first; the insert order breaks ties. */
  private static final List<OrderField<?>> NEWEST_FIRST =
      List.of(OUTBOX_EVENTS.DEAD_LETTERED_AT.desc(), OUTBOX_EVENTS.SEQ.desc());

  private final DSLContext dsl;
  private final OutboxTables tables;
  private final Clock clock;

  /**
   * @param dsl a context rendering the generated model onto {@code tables}
   * @param tables what {@link #tables()} answers
   */
  public DefaultOutboxAdmin(DSLContext dsl, OutboxTables tables, Clock clock) {
    this.dsl = dsl;
    this.tables = tables;
    this.clock = clock;
  }

  @Override
  public OutboxTables tables() {
    return tables;
  }

  @Override
  public long pendingCount() {
    // Counted per index: no index holds every pending row (ready ones and waiting ones apart).
    return dsl.select(count(OutboxConditions.READY).plus(count(OutboxConditions.WAITING)))
        .fetchSingle()
        .value1();
  }

  @Override
  public long deadLetterCount() {
    return dsl.fetchCount(OUTBOX_EVENTS, DEAD_LETTER);
  }

  @Override
  public OutboxStatus status() {
    OffsetDateTime now = OffsetDateTime.now(clock);
    Condition waitOver = OutboxConditions.WAITING.and(OUTBOX_EVENTS.RETRY_AFTER.le(now));
    // One statement, one probe or index count each: the ready rows by seq, the waiting ones by
    // the end of their wait.
    Record6<Long, Long, Long, Long, OffsetDateTime, OffsetDateTime> r =
        dsl.select(
                count(OutboxConditions.READY),
                count(OutboxConditions.WAITING),
                count(waitOver),
                count(DEAD_LETTER),
                DSL.field(
                    DSL.select(OUTBOX_EVENTS.CREATED_AT)
                        .from(OUTBOX_EVENTS)
                        .where(OutboxConditions.READY)
                        .orderBy(OUTBOX_EVENTS.SEQ)
                        .limit(1)),
                DSL.field(
                    DSL.select(OUTBOX_EVENTS.RETRY_AFTER)
                        .from(OUTBOX_EVENTS)
                        .where(waitOver)
                        .orderBy(OUTBOX_EVENTS.RETRY_AFTER)
                        .limit(1)))
            .fetchSingle();
    long ready = r.value1();
    Optional<Duration> oldest =
        Stream.of(r.value5(), r.value6())
            .filter(Objects::nonNull)
            .map(dueSince -> Duration.between(dueSince, now))
            .max(Comparator.naturalOrder())
            .map(age -> age.isNegative() ? Duration.ZERO : age);
    long processedLastMinute =
        dsl.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.gt(now.minusMinutes(1)));
    return new OutboxStatus(
        ready + r.value2(), ready + r.value3(), r.value4(), oldest, processedLastMinute);
  }

  @Override
  public TableUpkeep tableUpkeep() {
    // The table's name as jOOQ renders it for this outbox (schema, prefix, quoted): no value of a
    // caller's.
    Record r =
        dsl.resultQuery(
                "select pg_total_relation_size(c.oid), coalesce(s.n_live_tup, 0),"
                    + " coalesce(s.n_dead_tup, 0), greatest(s.last_vacuum, s.last_autovacuum),"
                    + " current_setting('autovacuum')::boolean"
                    + " and current_setting('track_counts')::boolean"
                    + " and coalesce((select o.option_value::boolean"
                    + " from pg_options_to_table(c.reloptions) o"
                    + " where o.option_name = 'autovacuum_enabled'), true)"
                    + " from pg_class c left join pg_stat_user_tables s on s.relid = c.oid"
                    + " where c.oid = {0}::regclass",
                DSL.inline(dsl.render(OUTBOX_EVENTS)))
            .fetchSingle();
    OffsetDateTime lastVacuum = r.get(3, OffsetDateTime.class);
    return new TableUpkeep(
        r.get(0, Long.class),
        r.get(1, Long.class),
        r.get(2, Long.class),
        Optional.ofNullable(lastVacuum).map(OffsetDateTime::toInstant),
        r.get(4, Boolean.class));
  }

  /** {@code select count(*) from outbox_events where condition}, as a field. */
  private static Field<Long> count(Condition condition) {
    return DSL.field(DSL.select(DSL.count().cast(Long.class)).from(OUTBOX_EVENTS).where(condition));
  }

  @Override
  public List<DeadLetter> deadLetters(@Nullable String eventType, int limit) {
    if (limit < 1 || limit > 10_000) {
      throw new IllegalArgumentException("limit must be between 1 and 10000 but was " + limit);
    }
    Condition where =
        eventType == null ? DEAD_LETTER : DEAD_LETTER.and(OUTBOX_EVENTS.EVENT_TYPE.eq(eventType));
    try {
      return dsl.select(EVERY_COLUMN)
          .from(OUTBOX_EVENTS)
          .where(where)
          .orderBy(NEWEST_FIRST)
          .limit(limit)
          .fetch(r -> deadLetter(r, r.get(OUTBOX_EVENTS.PAYLOAD), r.get(OUTBOX_EVENTS.HEADERS)));
    } catch (DataAccessException e) {
      if (!unsendable(e)) {
        throw e;
      }
      // The server could not send a row of the page (a jsonb rendered beyond 1 GB): read the page
      // without those columns, then each row's payload and headers on their own.
      return dsl.select(STATE_COLUMNS)
          .from(OUTBOX_EVENTS)
          .where(where)
          .orderBy(NEWEST_FIRST)
          .limit(limit)
          .fetch(this::deadLetterReadAlone);
    }
  }

  /** The dead letter of {@code r}, its payload and headers read alone, null when unsendable. */
  private DeadLetter deadLetterReadAlone(Record r) {
    Condition row = OUTBOX_EVENTS.ID.eq(r.get(OUTBOX_EVENTS.ID));
    try {
      Record both =
          dsl.select(OUTBOX_EVENTS.PAYLOAD, OUTBOX_EVENTS.HEADERS)
              .from(OUTBOX_EVENTS)
              .where(row)
              .fetchOne();
      if (both != null) {
        return deadLetter(r, both.get(OUTBOX_EVENTS.PAYLOAD), both.get(OUTBOX_EVENTS.HEADERS));
      }
    } catch (DataAccessException e) {
      if (!unsendable(e)) {
        throw e;
      }
      // One of the two cannot be sent: read each alone.
    }
    return deadLetter(
        r, readAlone(OUTBOX_EVENTS.PAYLOAD, row), readAlone(OUTBOX_EVENTS.HEADERS, row));
  }

  /** One column of one row, or null if the server cannot send it or the row is gone. */
  private @Nullable JSONB readAlone(Field<JSONB> column, Condition row) {
    try {
      return dsl.select(column).from(OUTBOX_EVENTS).where(row).fetchOne(column);
    } catch (DataAccessException e) {
      if (!unsendable(e)) {
        throw e;
      }
      return null;
    }
  }

  /**
   * Whether the server refused to send a value because of its size (SQLState class 54, program
   * limit exceeded, as PostgreSQL reports a jsonb it cannot render within 1 GB, or class 53,
   * insufficient resources). Any other error, such as a lost connection, is the listing's failure
   * and is thrown, so a value is never shown as missing because of a transient fault.
   */
  private static boolean unsendable(DataAccessException e) {
    String state = e.sqlState();
    return state != null && (state.startsWith("54") || state.startsWith("53"));
  }

  /**
   * A dead letter from the columns of {@code r} and the given payload and headers, null when the
   * server could not send them; headers that are not a flat JSON object of strings are handed on as
   * their text, as {@link DeadLetter#rawHeaders()} documents.
   */
  private static DeadLetter deadLetter(Record r, @Nullable JSONB payload, @Nullable JSONB headers) {
    Map<String, String> read = Map.of();
    String raw = null;
    if (headers != null) {
      try {
        read = Json.readStringMap(headers.data());
      } catch (IllegalArgumentException e) {
        raw = headers.data();
      }
    }
    return DeadLetter.builder()
        .id(r.get(OUTBOX_EVENTS.ID))
        .aggregateType(r.get(OUTBOX_EVENTS.AGGREGATE_TYPE))
        .aggregateId(r.get(OUTBOX_EVENTS.AGGREGATE_ID))
        .eventType(r.get(OUTBOX_EVENTS.EVENT_TYPE))
        .payload(payload == null ? null : payload.data())
        .headers(read)
        .rawHeaders(raw)
        .attempts(r.get(OUTBOX_EVENTS.ATTEMPTS))
        .createdAt(r.get(OUTBOX_EVENTS.CREATED_AT).toInstant())
        .deadLetteredAt(r.get(OUTBOX_EVENTS.DEAD_LETTERED_AT).toInstant())
        .lastError(r.get(OUTBOX_EVENTS.LAST_ERROR))
        .build();
  }

  @Override
  public List<DeadLetterGroup> deadLetterGroups() {
    Field<String> fingerprint =
        DSL.regexpReplaceAll(
                DSL.coalesce(OUTBOX_EVENTS.LAST_ERROR, DSL.inline("")), VARIABLE_PARTS, "?")
            .as("fingerprint");
    Field<OffsetDateTime> newest = DSL.max(OUTBOX_EVENTS.DEAD_LETTERED_AT).as("newest");
    return dsl.select(
            OUTBOX_EVENTS.EVENT_TYPE,
            fingerprint,
            DSL.count().as("n"),
            newest,
            DSL.max(OUTBOX_EVENTS.LAST_ERROR))
        .from(OUTBOX_EVENTS)
        .where(DEAD_LETTER)
        .groupBy(OUTBOX_EVENTS.EVENT_TYPE, DSL.field(DSL.name("fingerprint")))
        .orderBy(DSL.field(DSL.name("newest")).desc())
        .fetch(
            r ->
                new DeadLetterGroup(
                    r.value1(), r.value2(), r.value3(), r.value4().toInstant(), r.value5()));
  }

  @Override
  public long count(DeadLetterSelector selector) {
    return dsl.fetchCount(OUTBOX_EVENTS, selected(selector));
  }

  @Override
  public long requeue(DeadLetterSelector selector) {
    return inChunks(
        DEFAULT_CHUNK_SIZE,
        selected(selector),
        BY_ID,
        chunk ->
            dsl.update(OUTBOX_EVENTS)
                .setNull(OUTBOX_EVENTS.DEAD_LETTERED_AT)
                .setNull(OUTBOX_EVENTS.RETRY_AFTER)
                .set(OUTBOX_EVENTS.ATTEMPTS, 0)
                .where(chunk)
                .execute(),
        total -> {});
  }

  @Override
  public long purge(DeadLetterSelector selector) {
    return inChunks(
        DEFAULT_CHUNK_SIZE,
        selected(selector),
        BY_ID,
        chunk -> dsl.deleteFrom(OUTBOX_EVENTS).where(chunk).execute(),
        total -> {});
  }

  @Override
  public long cleanupProcessed(Duration olderThan, int chunkSize, LongConsumer progress) {
    Objects.requireNonNull(olderThan, "olderThan");
    Objects.requireNonNull(progress, "progress");
    if (olderThan.isNegative() || olderThan.compareTo(MAX_CLEANUP_AGE) > 0) {
      throw new IllegalArgumentException(
          "olderThan must be between 0 and "
              + MAX_CLEANUP_AGE.toDays()
              + " days but was "
              + olderThan);
    }
    requireChunkSize(chunkSize);
    OffsetDateTime cutoff = OffsetDateTime.now(clock).minus(olderThan);
    return inChunks(
        chunkSize,
        OUTBOX_EVENTS.PROCESSED_AT.lt(cutoff),
        BY_PROCESSED_AT,
        chunk -> dsl.deleteFrom(OUTBOX_EVENTS).where(chunk).execute(),
        progress);
  }

  /** One chunked change of the rows matching {@code chunk}; returns how many it touched. */
  private interface ChunkStatement {
    int apply(Condition chunk);
  }

  /**
   * Applies {@code statement} to the rows matching {@code where}, at most about {@code chunkSize}
   * at a time, walking them in {@code key} order (each row at most once, so rows that match again
   * while this runs, such as an event requeued here and dead-lettered again by a relay, cannot keep
   * it going); each statement commits on its own when the context is not in a transaction.
   *
   * <p>Each chunk is two statements: the key of the chunk's last row, then the change of the rows
   * in that key range <b>that match {@code where}</b>. The change re-checks the predicate on the
   * row it is about to change, after waiting for any concurrent change of that row (PostgreSQL
   * re-evaluates the WHERE clause on the newest row version), so a row that stopped matching in
   * between (requeued, purged, published, no longer processed) is left alone and not counted; a row
   * that started matching in the range is changed as it should be. No id list travels to the
   * server, so each statement is planned on the indexes whatever the table's size.
   */
  private long inChunks(
      int chunkSize,
      Condition where,
      Field<?>[] key,
      ChunkStatement statement,
      LongConsumer progress) {
    long total = 0;
    Object[] after = null;
    while (true) {
      Condition rest = after == null ? where : where.and(after(key, after));
      Record last =
          dsl.select(key)
              .from(OUTBOX_EVENTS)
              .where(rest)
              .orderBy(key)
              .offset(chunkSize - 1)
              .limit(1)
              .fetchOne();
      Condition chunk = last == null ? rest : rest.and(upTo(key, last.intoArray()));
      int touched = statement.apply(chunk);
      total += touched;
      if (touched > 0) {
        progress.accept(total);
      }
      if (last == null) {
        return total;
      }
      after = last.intoArray();
    }
  }

  /**
   * Rows after {@code values} in {@code key} order; the bound on the leading column alone lets the
   * index on it limit the scan (a row comparison is not an index condition on a one-column index).
   */
  @SuppressWarnings("unchecked")
  private static Condition after(Field<?>[] key, Object[] values) {
    return DSL.row(key).gt(values).and(((Field<Object>) key[0]).ge(values[0]));
  }

  /** Rows up to {@code values} included, in {@code key} order; see {@link #after}. */
  @SuppressWarnings("unchecked")
  private static Condition upTo(Field<?>[] key, Object[] values) {
    return DSL.row(key).le(values).and(((Field<Object>) key[0]).le(values[0]));
  }

  /**
   * The dead letters {@code selector} names. Every kind of the sealed selector has its branch; a
   * test checks that each permitted kind is handled, since Java 17 cannot switch over the kinds.
   */
  static Condition selected(DeadLetterSelector selector) {
    Objects.requireNonNull(selector, "selector");
    if (selector instanceof DeadLetterSelector.ByIds byIds) {
      return DEAD_LETTER.and(OUTBOX_EVENTS.ID.in(byIds.ids()));
    }
    if (selector instanceof DeadLetterSelector.ByEventType byType) {
      return DEAD_LETTER.and(OUTBOX_EVENTS.EVENT_TYPE.eq(byType.eventType()));
    }
    if (selector instanceof DeadLetterSelector.All) {
      return DEAD_LETTER;
    }
    throw new IllegalStateException("no condition for the selector kind " + selector.getClass());
  }

  private static void requireChunkSize(int chunkSize) {
    if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
      throw new IllegalArgumentException(
          "chunkSize must be between 1 and " + MAX_CHUNK_SIZE + " but was " + chunkSize);
    }
  }
}
