package dev.txoutbox.inbox;

import static dev.txoutbox.inbox.model.Tables.INBOX_PROCESSED_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.testing.TestDatabase;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OutboxInboxTest {

  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  private static TestDatabase db;
  private static DSLContext dsl;

  private final SettableClock clock = new SettableClock(T0);
  private OutboxInbox inbox;

  @BeforeAll
  static void migrate() {
    db = TestDatabase.createEmpty("inbox", 10);
    assertThat(OutboxInbox.migrate(db.dataSource(), db.schema())).isEqualTo(1);
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    db.execute("CREATE TABLE " + db.schema() + ".effects (consumer text, event_id uuid)");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void empty() {
    db.execute("TRUNCATE " + db.schema() + ".effects, " + db.schema() + ".inbox_processed_events");
    inbox = OutboxInbox.builder().schema(db.schema()).clock(clock).build();
  }

  @Test
  void aDuplicateIsRecognisedAndItsWorkSkipped() {
    UUID event = UUID.randomUUID();

    assertThat(process("shipping", event)).isTrue();
    assertThat(process("shipping", event)).isFalse();

    assertThat(effects("shipping", event)).isEqualTo(1);
  }

  @Test
  void aDuplicateDeliveredConcurrentlyToTwoThreadsIsProcessedOnce() throws Exception {
    UUID event = UUID.randomUUID();
    CountDownLatch firstMarked = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<Boolean> first =
          threads.submit(
              () ->
                  dsl.transactionResult(
                      c -> {
                        boolean fresh = inbox.firstTime(c.dsl(), "shipping", event);
                        if (fresh) {
                          work(c.dsl(), "shipping", event);
                        }
                        firstMarked.countDown();
                        assertThat(releaseFirst.await(30, TimeUnit.SECONDS)).isTrue();
                        return fresh;
                      }));
      assertThat(firstMarked.await(30, TimeUnit.SECONDS)).isTrue();
      Future<Boolean> second = threads.submit(() -> process("shipping", event));
      // The second delivery's INSERT waits on the first's uncommitted mark.
      LockWaits.awaitAMarkWaiting(dsl, db.schema());
      releaseFirst.countDown();

      assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
      assertThat(second.get(30, TimeUnit.SECONDS)).isFalse();
    } finally {
      releaseFirst.countDown();
      threads.shutdownNow();
    }
    assertThat(effects("shipping", event)).isEqualTo(1);
  }

  @Test
  void manyThreadsRacingOnTheSameEventsProcessEachOnce() throws Exception {
    int threadCount = 4;
    List<UUID> events = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      events.add(UUID.randomUUID());
    }
    CyclicBarrier start = new CyclicBarrier(threadCount);
    ExecutorService threads = Executors.newFixedThreadPool(threadCount);
    List<Future<Integer>> fresh = new ArrayList<>();
    try {
      for (int t = 0; t < threadCount; t++) {
        fresh.add(
            threads.submit(
                () -> {
                  start.await(30, TimeUnit.SECONDS);
                  int processed = 0;
                  for (UUID event : events) {
                    processed += process("shipping", event) ? 1 : 0;
                  }
                  return processed;
                }));
      }
      int total = 0;
      for (Future<Integer> f : fresh) {
        total += f.get(60, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(events.size());
    } finally {
      threads.shutdownNow();
    }
    assertThat(dsl.fetchCount(effectsTable())).isEqualTo(events.size());
  }

  @Test
  void aTransactionThatRollsBackDoesNotRecordTheId() {
    UUID event = UUID.randomUUID();

    assertThatThrownBy(
            () ->
                dsl.transaction(
                    c -> {
                      assertThat(inbox.firstTime(c.dsl(), "shipping", event)).isTrue();
                      work(c.dsl(), "shipping", event);
                      throw new IllegalStateException("the work failed");
                    }))
        .hasMessage("the work failed");

    assertThat(marks()).isZero();
    assertThat(effects("shipping", event)).isZero();
    assertThat(process("shipping", event)).isTrue();
    assertThat(effects("shipping", event)).isEqualTo(1);
  }

  @Test
  void twoConsumerNamesProcessTheSameEventOnceEach() {
    UUID event = UUID.randomUUID();

    assertThat(process("shipping", event)).isTrue();
    assertThat(process("billing", event)).isTrue();
    assertThat(process("shipping", event)).isFalse();
    assertThat(process("billing", event)).isFalse();

    assertThat(effects("shipping", event)).isEqualTo(1);
    assertThat(effects("billing", event)).isEqualTo(1);
  }

  @Test
  void cleanupRemovesOnlyTheOldIds() {
    List<UUID> old = mark(25);
    clock.set(T0.plus(Duration.ofDays(2)));
    List<UUID> recent = mark(5);
    clock.set(T0.plus(Duration.ofDays(3)));

    assertThat(inbox.cleanup(dsl, Duration.ofDays(2), 10)).isEqualTo(25);

    assertThat(marks()).isEqualTo(5);
    assertThat(process("shipping", recent.get(0))).isFalse();
    assertThat(process("shipping", old.get(0))).isTrue(); // forgotten, so processed again
  }

  @Test
  void cleanupDeletesInChunksOfAtMostChunkSize() {
    mark(25);
    clock.set(T0.plus(Duration.ofDays(1)));

    assertThat(inbox.cleanupChunk(dsl, Duration.ofHours(1), 10)).isEqualTo(10);
    assertThat(marks()).isEqualTo(15);
    assertThat(inbox.cleanupChunk(dsl, Duration.ofHours(1), 10)).isEqualTo(10);
    assertThat(inbox.cleanupChunk(dsl, Duration.ofHours(1), 10)).isEqualTo(5);
    assertThat(inbox.cleanupChunk(dsl, Duration.ofHours(1), 10)).isZero();
    assertThat(marks()).isZero();
  }

  @Test
  void cleanupLoopsOverChunksUntilNoneAreLeft() {
    mark(23);
    clock.set(T0.plus(Duration.ofDays(1)));

    assertThat(inbox.cleanup(dsl, Duration.ofHours(1), 5)).isEqualTo(23);
    assertThat(inbox.cleanup(dsl, Duration.ofHours(1), 5)).isZero();
    assertThat(marks()).isZero();
  }

  @Test
  void cleanupRefusesBadArguments() {
    assertThatThrownBy(() -> inbox.cleanup(dsl, Duration.ofSeconds(-1), 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("olderThan must be between 0 and 36500 days but was PT-1S");
    assertThatThrownBy(() -> inbox.cleanup(dsl, Duration.ZERO, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkSize must be 1 to 100000 but was 0");
    assertThatThrownBy(() -> inbox.cleanupChunk(dsl, Duration.ZERO, 100_001))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkSize must be 1 to 100000 but was 100001");
  }

  @Test
  void cleanupRefusesAHugeOlderThanNamingItsLimitInsteadOfFailingInTheDatabase() {
    mark(3);
    clock.set(T0.plus(Duration.ofDays(1)));

    // Each failed in the date arithmetic or in PostgreSQL's timestamptz range before.
    for (Duration huge :
        List.of(
            Duration.ofDays(100_000_000),
            Duration.ofSeconds(Long.MAX_VALUE, 999_999_999),
            Duration.ofDays(36_501))) {
      assertThatThrownBy(() -> inbox.cleanup(dsl, huge, 10))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("olderThan must be between 0 and 36500 days but was " + huge);
      assertThatThrownBy(() -> inbox.cleanupChunk(dsl, huge, 10))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("olderThan must be between 0 and 36500 days but was " + huge);
    }
    assertThat(marks()).isEqualTo(3);
    assertThat(inbox.cleanup(dsl, OutboxInbox.MAX_CLEANUP_AGE, 10)).isZero();
    assertThat(inbox.cleanup(dsl, Duration.ofHours(1), 10)).isEqualTo(3);
  }

  @Test
  void aBadConsumerNameIsRefusedBeforeAnythingIsWritten() {
    UUID event = UUID.randomUUID();

    assertThatThrownBy(() -> process(" ", event))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "consumerName must not be blank (only whitespace, no-break spaces or invisible"
                + " characters such as U+200B) but was U+0020");
    assertThatThrownBy(() -> process("x".repeat(256), event))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "consumerName must be at most 255 characters (the consumer varchar(255) column, which"
                + " counts code points) but had 256: 'xxxx");
    assertThatThrownBy(() -> process("ship\0ping", event))
        .hasMessage(
            "consumerName must not contain U+0000 (PostgreSQL cannot store it) but did at index 4");
    assertThatThrownBy(() -> process(null, event))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("consumerName");

    assertThat(marks()).isZero();
    assertThat(dsl.fetchCount(effectsTable())).isZero();
  }

  @Test
  void aConsumerNameIsCountedInCodePointsAsPostgresqlCountsThem() {
    String longest = "🚚".repeat(255); // 510 Java chars, 255 code points, 1020 UTF-8 bytes
    String tooLong = longest + "x";
    Integer liveLength =
        dsl.select(DSL.field("character_maximum_length", Integer.class))
            .from("information_schema.columns")
            .where(DSL.field("table_schema").eq(db.schema()))
            .and(DSL.field("table_name").eq(INBOX_PROCESSED_EVENTS.getName()))
            .and(DSL.field("column_name").eq(INBOX_PROCESSED_EVENTS.CONSUMER.getName()))
            .fetchOne(0, Integer.class);

    assertThat(liveLength).isEqualTo(OutboxInbox.MAX_CONSUMER_NAME_LENGTH);
    assertThat(process(longest, UUID.randomUUID())).isTrue();
    assertThatThrownBy(() -> OutboxInbox.requireConsumerName(tooLong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("but had 256");
  }

  @Test
  void refusesAConnectionInAutoCommitMode() {
    assertThatThrownBy(() -> inbox.firstTime(dsl, "shipping", UUID.randomUUID()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("auto-commit");
    assertThat(marks()).isZero();
  }

  @Test
  void migratesIntoItsOwnSchemaWithItsOwnHistoryTable() {
    assertThat(OutboxInbox.migrate(db.dataSource(), db.schema())).isZero();

    List<String> tables =
        dsl.select(DSL.field("table_name", String.class))
            .from("information_schema.tables")
            .where(DSL.field("table_schema").eq(db.schema()))
            .fetch(0, String.class);
    assertThat(tables)
        .contains("inbox_processed_events", OutboxInbox.HISTORY_TABLE)
        .doesNotContain("outbox_events", "outbox_schema_history");
  }

  @Test
  void theLiveTableMatchesTheGeneratedModel() {
    List<String> live =
        dsl.select(
                DSL.field("column_name", String.class),
                DSL.field("udt_name", String.class),
                DSL.field("is_nullable", String.class))
            .from("information_schema.columns")
            .where(DSL.field("table_schema").eq(db.schema()))
            .and(DSL.field("table_name").eq(INBOX_PROCESSED_EVENTS.getName()))
            .orderBy(DSL.field("ordinal_position"))
            .fetch(r -> r.value1() + " " + r.value2() + " " + r.value3());
    List<String> generated = new ArrayList<>();
    for (Field<?> f : INBOX_PROCESSED_EVENTS.fields()) {
      generated.add(
          f.getName()
              + " "
              + f.getDataType().getTypeName().replace("character varying", "varchar")
              + (f.getDataType().nullable() ? " YES" : " NO"));
    }

    assertThat(live)
        .containsExactly("consumer varchar NO", "event_id uuid NO", "processed_at timestamptz NO");
    assertThat(generated)
        .containsExactly(
            "consumer varchar NO", "event_id uuid NO", "processed_at timestamp with time zone NO");
    assertThat(INBOX_PROCESSED_EVENTS.CONSUMER.getDataType().length())
        .isEqualTo(OutboxInbox.MAX_CONSUMER_NAME_LENGTH);
  }

  @Test
  void refusesABadSchemaName() {
    assertThatThrownBy(() -> OutboxInbox.builder().schema("Bad-Schema"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("schema must be a lower-case identifier");
    assertThatThrownBy(() -> OutboxInbox.migrate(db.dataSource(), "user"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reserved SQL key word");
  }

  /** One delivery: mark and, when new, do the work, in one transaction. */
  private boolean process(String consumer, UUID event) {
    return dsl.transactionResult(
        c -> {
          boolean fresh = inbox.firstTime(c.dsl(), consumer, event);
          if (fresh) {
            work(c.dsl(), consumer, event);
          }
          return fresh;
        });
  }

  private List<UUID> mark(int count) {
    List<UUID> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      UUID event = UUID.randomUUID();
      assertThat(process("shipping", event)).isTrue();
      events.add(event);
    }
    return events;
  }

  private static void work(DSLContext tx, String consumer, UUID event) {
    tx.insertInto(effectsTable())
        .columns(
            DSL.field("consumer", SQLDataType.VARCHAR), DSL.field("event_id", SQLDataType.UUID))
        .values(consumer, event)
        .execute();
  }

  private static int effects(String consumer, UUID event) {
    return dsl.fetchCount(
        effectsTable(), DSL.field("consumer").eq(consumer).and(DSL.field("event_id").eq(event)));
  }

  private static int marks() {
    return dsl.fetchCount(DSL.table(DSL.name(db.schema(), "inbox_processed_events")));
  }

  private static Table<Record> effectsTable() {
    return DSL.table(DSL.name(db.schema(), "effects"));
  }

  /** A clock the test sets. */
  private static final class SettableClock extends Clock {
    private volatile Instant now;

    SettableClock(Instant now) {
      this.now = now;
    }

    void set(Instant now) {
      this.now = now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
