package dev.txoutbox.internal.admin;

import static dev.txoutbox.internal.OutboxConditions.DEAD_LETTER;
import static dev.txoutbox.internal.OutboxConditions.PENDING;
import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.DeadLetter;
import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.DeadLetterSelector;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.internal.OutboxConditions;
import dev.txoutbox.internal.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongConsumer;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;

/** The {@link OutboxAdmin} over jOOQ; every bulk change in bounded chunks. */
public final class DefaultOutboxAdmin implements OutboxAdmin {

  /** Quoted values, UUIDs, hex and decimal numbers: the parts of an error that vary. */
  private static final String VARIABLE_PARTS =
      "'[^']*'|\"[^\"]*\"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
          + "|0x[0-9a-fA-F]+|[0-9]+";

  private final DSLContext dsl;
  private final Clock clock;

  public DefaultOutboxAdmin(DSLContext dsl, Clock clock) {
    this.dsl = dsl;
    this.clock = clock;
  }

  @Override
  public long pendingCount() {
    return dsl.fetchCount(OUTBOX_EVENTS, PENDING);
  }

  @Override
  public long deadLetterCount() {
    return dsl.fetchCount(OUTBOX_EVENTS, DEAD_LETTER);
  }

  @Override
  public OutboxStatus status() {
    OffsetDateTime now = OffsetDateTime.now(clock);
    long pending = pendingCount();
    long due = dsl.fetchCount(OUTBOX_EVENTS, OutboxConditions.due(now));
    long dead = deadLetterCount();
    // The oldest pending event is the one with the lowest seq: one probe of the pending index.
    Optional<Duration> oldest =
        dsl.select(OUTBOX_EVENTS.CREATED_AT)
            .from(OUTBOX_EVENTS)
            .where(PENDING)
            .orderBy(OUTBOX_EVENTS.SEQ)
            .limit(1)
            .fetchOptional(OUTBOX_EVENTS.CREATED_AT)
            .map(created -> Duration.between(created, now))
            .map(age -> age.isNegative() ? Duration.ZERO : age);
    long processedLastMinute =
        dsl.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.gt(now.minusMinutes(1)));
    return new OutboxStatus(pending, due, dead, oldest, processedLastMinute);
  }

  @Override
  public List<DeadLetter> deadLetters(String eventType, int limit) {
    if (limit < 1 || limit > 10_000) {
      throw new IllegalArgumentException("limit must be between 1 and 10000 but was " + limit);
    }
    Condition where =
        eventType == null ? DEAD_LETTER : DEAD_LETTER.and(OUTBOX_EVENTS.EVENT_TYPE.eq(eventType));
    return dsl.selectFrom(OUTBOX_EVENTS)
        .where(where)
        .orderBy(OUTBOX_EVENTS.DEAD_LETTERED_AT.desc(), OUTBOX_EVENTS.SEQ.desc())
        .limit(limit)
        .fetch(
            r ->
                new DeadLetter(
                    r.getId(),
                    r.getAggregateType(),
                    r.getAggregateId(),
                    r.getEventType(),
                    r.getPayload().data(),
                    Json.readStringMap(r.getHeaders().data()),
                    r.getAttempts(),
                    r.getCreatedAt().toInstant(),
                    r.getDeadLetteredAt().toInstant(),
                    r.getLastError()));
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
        ids ->
            dsl.update(OUTBOX_EVENTS)
                .setNull(OUTBOX_EVENTS.DEAD_LETTERED_AT)
                .setNull(OUTBOX_EVENTS.RETRY_AFTER)
                .set(OUTBOX_EVENTS.ATTEMPTS, 0)
                .where(OUTBOX_EVENTS.ID.in(ids))
                .execute(),
        total -> {});
  }

  @Override
  public long purge(DeadLetterSelector selector) {
    return inChunks(
        DEFAULT_CHUNK_SIZE,
        selected(selector),
        ids -> dsl.deleteFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.in(ids)).execute(),
        total -> {});
  }

  @Override
  public long cleanupProcessed(Duration olderThan, int chunkSize, LongConsumer progress) {
    Objects.requireNonNull(olderThan, "olderThan");
    Objects.requireNonNull(progress, "progress");
    if (olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must not be negative but was " + olderThan);
    }
    requireChunkSize(chunkSize);
    OffsetDateTime cutoff = OffsetDateTime.now(clock).minus(olderThan);
    return inChunks(
        chunkSize,
        OUTBOX_EVENTS.PROCESSED_AT.lt(cutoff),
        ids -> dsl.deleteFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.in(ids)).execute(),
        progress);
  }

  /** Functional shape of one chunked statement: the ids sub-select in, rows touched out. */
  private interface ChunkStatement {
    int apply(org.jooq.Select<org.jooq.Record1<UUID>> ids);
  }

  /**
   * Repeats {@code statement} on at most {@code chunkSize} matching rows at a time until none is
   * left; each statement commits on its own when the context is not in a transaction.
   */
  private long inChunks(
      int chunkSize, Condition where, ChunkStatement statement, LongConsumer progress) {
    long total = 0;
    while (true) {
      int touched =
          statement.apply(
              DSL.select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).where(where).limit(chunkSize));
      total += touched;
      if (touched > 0) {
        progress.accept(total);
      }
      if (touched < chunkSize) {
        return total;
      }
    }
  }

  private static Condition selected(DeadLetterSelector selector) {
    Objects.requireNonNull(selector, "selector");
    if (selector.everything()) {
      return DEAD_LETTER;
    }
    if (selector.eventType() != null) {
      return DEAD_LETTER.and(OUTBOX_EVENTS.EVENT_TYPE.eq(selector.eventType()));
    }
    return DEAD_LETTER.and(OUTBOX_EVENTS.ID.in(selector.ids()));
  }

  private static void requireChunkSize(int chunkSize) {
    if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
      throw new IllegalArgumentException(
          "chunkSize must be between 1 and " + MAX_CHUNK_SIZE + " but was " + chunkSize);
    }
  }
}
