package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestClock;
import dev.txoutbox.testing.TestDatabase;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OutboxAdminTest {

  private static TestDatabase db;
  private static DSLContext dsl;
  private static DSLContext mapped;
  private Outbox outbox;
  private OutboxAdmin admin;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("admin");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    mapped = TestSupport.mapped(db);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void clean() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
    outbox = Outbox.builder().schema(db.schema()).build();
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
  }

  private List<UUID> write(int count, String eventType) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      // An aggregate per event: the relay attempts no later event of an aggregate after a failure.
      events.add(OutboxEvent.of("order", eventType + "-" + i, eventType, "{}"));
    }
    return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
  }

  /** Dead-letters every pending event of {@code eventType} through a relay, with this error. */
  private void deadLetter(String eventType, String error) throws InterruptedException {
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.eventType().equals(eventType)
                        ? PublishResult.permanent(error.replace("#", m.aggregateId()))
                        : PublishResult.retryable("not this time"));
    TestSupport.relayBuilder(db, publisher)
        .config(RelayConfig.builder().batchSize(1000).build())
        .build()
        .runOnce();
  }

  @Test
  void statusCountsPendingDueAndDeadLettersAndTheOldestAge() throws Exception {
    assertThat(admin.status().oldestPendingAge()).isEmpty();
    write(3, "order.created");
    write(2, "order.paid");
    deadLetter("order.paid", "no route for #");
    // Every order.created got a retryable failure: pending, but not due for about a second.

    OutboxStatus status = admin.status();

    assertThat(status.pending()).isEqualTo(3);
    assertThat(status.dueNow()).isZero();
    assertThat(status.deadLetters()).isEqualTo(2);
    assertThat(status.oldestPendingAge()).as("no event is due: none has waited").isEmpty();
    assertThat(status.processedLastMinute()).isZero();
    write(1, "order.shipped");
    assertThat(admin.status().oldestPendingAge())
        .hasValueSatisfying(age -> assertThat(age).isGreaterThanOrEqualTo(Duration.ZERO));
  }

  @Test
  void listsAndGroupsDeadLettersNewestFirst() throws Exception {
    write(3, "order.paid");
    deadLetter("order.paid", "topic 'orders-#' does not exist");
    write(2, "order.shipped");
    deadLetter("order.shipped", "record of 2000000 bytes too large");

    assertThat(admin.deadLetters(null, 10)).hasSize(5);
    assertThat(admin.deadLetters("order.paid", 10))
        .hasSize(3)
        .allSatisfy(
            d -> {
              assertThat(d.eventType()).isEqualTo("order.paid");
              assertThat(d.lastError()).startsWith("topic 'orders-order.paid-");
              assertThat(d.attempts()).isEqualTo(1);
            });
    assertThat(admin.deadLetters(null, 2)).hasSize(2);
    assertThat(admin.deadLetterGroups())
        .extracting(
            DeadLetterGroup::eventType, DeadLetterGroup::errorFingerprint, DeadLetterGroup::count)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("order.shipped", "record of ? bytes too large", 2L),
            org.assertj.core.groups.Tuple.tuple("order.paid", "topic ? does not exist", 3L));
    assertThatThrownBy(() -> admin.deadLetters(null, 0)).hasMessageContaining("limit");
  }

  @Test
  void theLastErrorNamesTheCausesTextOnce() throws Exception {
    List<UUID> ids = write(2, "order.paid");
    // As publisher-kafka reports a rejected record: the reason already quotes the exception.
    RuntimeException tooLarge =
        new IllegalStateException("The message is 2000000 bytes when serialized");
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.id().equals(ids.get(0))
                        ? PublishResult.permanent(
                            "IllegalStateException: " + tooLarge.getMessage(), tooLarge)
                        : PublishResult.permanent(
                            "broker refused", new IllegalStateException("x9")));
    TestSupport.relayBuilder(db, publisher).build().runOnce();

    assertThat(admin.deadLetters(null, 10))
        .extracting(DeadLetter::id, DeadLetter::lastError)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(
                ids.get(0), "IllegalStateException: The message is 2000000 bytes when serialized"),
            org.assertj.core.groups.Tuple.tuple(
                ids.get(1), "broker refused: java.lang.IllegalStateException: x9"));
  }

  @Test
  void fingerprintsKeepQuotedPunctuationApostrophesAndWordsWithDigits() throws Exception {
    write(2, "order.paid");
    deadLetter("order.paid", "expected digits, ',', ';' and ' ' in '#-abc' (utf8, s3)");
    write(2, "order.shipped");
    deadLetter("order.shipped", "can't route \"orders-#\" to queue 17: rejected");

    assertThat(admin.deadLetterGroups())
        .extracting(
            DeadLetterGroup::eventType, DeadLetterGroup::errorFingerprint, DeadLetterGroup::count)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "order.shipped", "can't route ? to queue ?: rejected", 2L),
            org.assertj.core.groups.Tuple.tuple(
                "order.paid", "expected digits, ',', ';' and ' ' in ? (utf8, s3)", 2L));
  }

  @Test
  void requeuesByIdByTypeAndAll() throws Exception {
    List<UUID> paid = write(3, "order.paid");
    deadLetter("order.paid", "x");
    write(2, "order.shipped");
    deadLetter("order.shipped", "y");
    assertThat(admin.deadLetterCount()).isEqualTo(5);

    assertThat(admin.count(DeadLetterSelector.ids(paid.get(0)))).isEqualTo(1);
    assertThat(admin.requeue(DeadLetterSelector.ids(paid.get(0), UUID.randomUUID()))).isEqualTo(1);
    assertThat(admin.requeue(DeadLetterSelector.eventType("order.shipped"))).isEqualTo(2);
    assertThat(admin.deadLetterCount()).isEqualTo(2);
    assertThat(admin.requeue(DeadLetterSelector.all())).isEqualTo(2);
    assertThat(admin.deadLetterCount()).isZero();
    assertThat(admin.status().dueNow()).isEqualTo(5);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.ne(0))).isZero();
  }

  @Test
  void purgeDeletesOnlyTheSelectedDeadLetters() throws Exception {
    write(3, "order.paid");
    write(4, "order.created");
    deadLetter("order.paid", "x");

    assertThat(admin.purge(DeadLetterSelector.eventType("order.created"))).isZero();
    assertThat(admin.purge(DeadLetterSelector.all())).isEqualTo(3);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS)).isEqualTo(4);
  }

  @Test
  void retentionCleanupDeletesOnlyOldProcessedRowsInChunks() throws Exception {
    List<UUID> old = write(10, "order.created");
    List<UUID> recent = write(4, "order.created");
    List<UUID> pending = write(3, "order.created");
    OffsetDateTime now = OffsetDateTime.now();
    mapped
        .update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.PROCESSED_AT, now.minusDays(8))
        .where(OUTBOX_EVENTS.ID.in(old))
        .execute();
    mapped
        .update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.PROCESSED_AT, now.minusDays(1))
        .where(OUTBOX_EVENTS.ID.in(recent))
        .execute();
    // An old dead letter is not a processed row: retention must leave it to operators.
    mapped
        .update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.DEAD_LETTERED_AT, now.minusDays(30))
        .where(OUTBOX_EVENTS.ID.eq(pending.get(0)))
        .execute();
    List<Long> progress = new ArrayList<>();

    long deleted = admin.cleanupProcessed(Duration.ofDays(7), 3, progress::add);

    assertThat(deleted).isEqualTo(10);
    assertThat(progress).containsExactly(3L, 6L, 9L, 10L);
    assertThat(mapped.select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).fetch(OUTBOX_EVENTS.ID))
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.Stream.concat(recent.stream(), pending.stream()).toList());
    assertThatThrownBy(() -> admin.cleanupProcessed(Duration.ofDays(-1), 3, n -> {}))
        .hasMessageContaining("olderThan");
    assertThatThrownBy(() -> admin.cleanupProcessed(Duration.ofDays(1), 0, n -> {}))
        .hasMessageContaining("chunkSize")
        .hasMessageContaining("100000");
  }

  @Test
  void bulkChangesRunTwoSmallStatementsPerChunkWhateverTheirSize() throws Exception {
    List<UUID> dead = write(12_000, "order.paid");
    mapped
        .update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.DEAD_LETTERED_AT, OffsetDateTime.now())
        .where(OUTBOX_EVENTS.ID.in(dead.subList(0, 6_000)))
        .execute();
    mapped
        .update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.PROCESSED_AT, OffsetDateTime.now().minusDays(9))
        .where(OUTBOX_EVENTS.ID.in(dead.subList(6_000, 12_000)))
        .execute();
    List<List<Object>> bindsPerStatement = new java.util.concurrent.CopyOnWriteArrayList<>();
    DSLContext counting =
        DSL.using(
            new org.jooq.impl.DefaultConfiguration()
                .set(db.dataSource())
                .set(SQLDialect.POSTGRES)
                .set(
                    org.jooq.ExecuteListener.onStart(
                        ctx -> bindsPerStatement.add(ctx.query().getBindValues()))));
    OutboxAdmin counted = OutboxAdmin.create(counting, db.schema());

    assertThat(counted.requeue(DeadLetterSelector.all())).isEqualTo(6_000);
    // Chunks of 5,000: the key of each chunk's last row, then the change of that key range.
    assertThat(bindsPerStatement).hasSize(4);
    bindsPerStatement.clear();
    assertThat(counted.cleanupProcessed(Duration.ofDays(7), 2_500, n -> {})).isEqualTo(6_000);
    assertThat(bindsPerStatement).hasSize(6);
    System.out.printf(
        "bind values per admin statement: %s%n",
        bindsPerStatement.stream().map(List::size).toList());
    // No id list travels (an array of ids parsed per row made a 5,000-row chunk take 39 s on a
    // sequential scan): a statement binds its bounds, never the chunk's rows.
    assertThat(bindsPerStatement)
        .allSatisfy(
            binds ->
                assertThat(binds)
                    .hasSizeLessThanOrEqualTo(8)
                    .noneMatch(b -> b instanceof Object[]));
  }

  @Test
  void cleanupMeasuresAgesOnTheBuildersClock() {
    List<UUID> ids = write(3, "order.created");
    Instant now = Instant.parse("2001-06-15T12:00:00Z");
    processedAt(ids.get(0), now.minus(Duration.ofDays(12)));
    processedAt(ids.get(1), now.minus(Duration.ofDays(4)));
    processedAt(ids.get(2), now.plus(Duration.ofDays(1)));
    OutboxAdmin fixed =
        OutboxAdmin.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .clock(Clock.fixed(now, ZoneOffset.UTC))
            .build();

    // On the system clock all three are years old; on the admin's clock only the first is.
    assertThat(fixed.cleanupProcessed(Duration.ofDays(7))).isEqualTo(1);
    assertThat(mapped.select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).fetch(OUTBOX_EVENTS.ID))
        .containsExactlyInAnyOrder(ids.get(1), ids.get(2));
    assertThat(fixed.cleanupProcessed(Duration.ofDays(3))).isEqualTo(1);
    assertThat(admin.cleanupProcessed(Duration.ofDays(7))).as("the system clock").isEqualTo(1);
  }

  @Test
  void statusReadsNowFromTheBuildersClock() {
    UUID later = write(1, "order.created").get(0);
    Instant retryAfter = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
    mapped
        .update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.RETRY_AFTER, retryAfter.atOffset(ZoneOffset.UTC))
        .where(OUTBOX_EVENTS.ID.eq(later))
        .execute();
    TestClock clock = TestClock.at(retryAfter.minus(Duration.ofMinutes(1)));
    OutboxAdmin onClock =
        OutboxAdmin.builder().dsl(mapped).schema(db.schema()).clock(clock).build();

    OutboxStatus before = onClock.status();
    assertThat(before.pending()).isEqualTo(1);
    assertThat(before.dueNow()).isZero();
    assertThat(before.oldestPendingAge()).as("waiting for its time, it is not behind").isEmpty();
    clock.advance(Duration.ofMinutes(2));
    OutboxStatus after = onClock.status();
    assertThat(after.dueNow()).isEqualTo(1);
    assertThat(after.oldestPendingAge())
        .as("it has waited since its time came, a minute ago")
        .contains(Duration.ofMinutes(1));
  }

  @Test
  void builderNeedsExactlyOneDatabaseAndAValidSchema() {
    assertThatThrownBy(() -> OutboxAdmin.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the admin must be given exactly one of dataSource(...) or dsl(...) but was given"
                + " neither");
    assertThatThrownBy(() -> OutboxAdmin.builder().dataSource(db.dataSource()).dsl(dsl).build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(
            () -> OutboxAdmin.builder().dataSource(db.dataSource()).schema("Bad-Name").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("schema must be");
    assertThatThrownBy(() -> OutboxAdmin.builder().clock(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("clock");
    assertThatThrownBy(() -> OutboxAdmin.create((javax.sql.DataSource) null, db.schema()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("dataSource");
  }

  private void processedAt(UUID id, Instant at) {
    mapped
        .update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.PROCESSED_AT, at.atOffset(ZoneOffset.UTC))
        .where(OUTBOX_EVENTS.ID.eq(id))
        .execute();
  }
}
