package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.junit.jupiter.api.Test;

/**
 * The statements the WAL relay renders once run with each batch's own values: they claim, look at
 * and delete exactly the rows of the batch's ids that the statements jOOQ builds would.
 */
class WalStatementsTest {

  private static final OffsetDateTime NOW =
      OffsetDateTime.of(2026, 12, 2, 10, 0, 0, 0, ZoneOffset.UTC);

  /** One row in each state, and an id without a row. */
  private record Rows(UUID pending, UUID processed, UUID dead, UUID waiting, UUID missing) {
    UUID[] all() {
      return new UUID[] {pending, processed, dead, waiting, missing};
    }
  }

  private static Rows rows(DSLContext dsl) {
    Rows r =
        new Rows(
            UUID.randomUUID(),
            UUID.randomUUID(),
            UUID.randomUUID(),
            UUID.randomUUID(),
            UUID.randomUUID());
    insert(dsl, r.pending(), null, null, null);
    insert(dsl, r.processed(), NOW.minusHours(1), null, null);
    insert(dsl, r.dead(), null, NOW.minusHours(1), null);
    insert(dsl, r.waiting(), null, null, NOW.plusHours(1));
    return r;
  }

  private static void insert(
      DSLContext dsl,
      UUID id,
      OffsetDateTime processedAt,
      OffsetDateTime deadLetteredAt,
      OffsetDateTime retryAfter) {
    dsl.insertInto(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.ID, id)
        .set(OUTBOX_EVENTS.AGGREGATE_TYPE, "order")
        .set(OUTBOX_EVENTS.AGGREGATE_ID, "o-1")
        .set(OUTBOX_EVENTS.EVENT_TYPE, "OrderPlaced")
        .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
        .set(OUTBOX_EVENTS.PROCESSED_AT, processedAt)
        .set(OUTBOX_EVENTS.DEAD_LETTERED_AT, deadLetteredAt)
        .set(OUTBOX_EVENTS.RETRY_AFTER, retryAfter)
        .execute();
  }

  private static WalStatements statements(DSLContext dsl, Ordering ordering, CompletionMode mode) {
    return new WalStatements(dsl, ordering, Duration.ofSeconds(1), mode);
  }

  @Test
  void markingClaimsAndMarksThePendingRowsOnlyAndSeesEveryRowThere() {
    DSLContext dsl = LogicalServer.dsl(LogicalServer.freshOutbox("sm_"));
    Rows r = rows(dsl);
    var statements = statements(dsl, Ordering.NONE, CompletionMode.MARK_PROCESSED);
    dsl.transaction(
        t -> {
          statements.settings(t.dsl());
          assertThat(statements.claim(t.dsl(), r.all(), NOW)).containsExactly(r.pending());
          assertThat(statements.visible(t.dsl(), r.all()))
              .containsExactlyInAnyOrder(r.pending(), r.processed(), r.dead(), r.waiting());
          assertThatThrownBy(() -> statements.claimSeen(t.dsl(), r.all()))
              .isInstanceOf(IllegalStateException.class);
          // Published: marked again with the time of the outcome, nothing deleted.
          statements.complete(t.dsl(), java.util.List.of(r.pending()), NOW, NOW.plusSeconds(1));
        });
    assertThat(
            dsl.select(OUTBOX_EVENTS.PROCESSED_AT)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(r.pending()))
                .fetchSingle()
                .value1()
                .toInstant())
        .isEqualTo(NOW.plusSeconds(1).toInstant());
    assertThat(dsl.fetchCount(OUTBOX_EVENTS)).isEqualTo(4);
  }

  @Test
  void deletingLocksThePendingRowsTellsWhichWereThereAndDeletesThePublishedOnes() {
    DSLContext dsl = LogicalServer.dsl(LogicalServer.freshOutbox("sd_"));
    Rows r = rows(dsl);
    var statements = statements(dsl, Ordering.PER_AGGREGATE, CompletionMode.DELETE);
    dsl.transaction(
        t -> {
          statements.settings(t.dsl());
          Map<UUID, Boolean> seen = statements.claimSeen(t.dsl(), r.all());
          assertThat(seen)
              .containsOnly(
                  Map.entry(r.pending(), true),
                  Map.entry(r.processed(), false),
                  Map.entry(r.dead(), false),
                  Map.entry(r.waiting(), false));
          assertThatThrownBy(() -> statements.claim(t.dsl(), r.all(), NOW))
              .isInstanceOf(IllegalStateException.class);
          statements.complete(t.dsl(), java.util.List.of(r.pending()), NOW, NOW);
        });
    assertThat(dsl.fetch(OUTBOX_EVENTS).getValues(OUTBOX_EVENTS.ID))
        .containsExactlyInAnyOrder(r.processed(), r.dead(), r.waiting());
  }
}
