package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.schema.model.tables.records.OutboxEventsRecord;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestClock;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A batch's outcome is dated when the publisher returned it, not when the batch was claimed: a
 * publish that blocked (a broker outage, a slow acknowledgement) does not put {@code processed_at},
 * {@code dead_lettered_at} or the next attempt's time before the broker answered.
 */
class OutcomeTimesTest {

  private static final Duration BACKOFF = Duration.ofMinutes(1);
  private static final Duration BLOCKED = Duration.ofHours(1);

  private static TestDatabase db;
  private static DSLContext mapped;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("outcome_times");
    mapped = TestSupport.mapped(db);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Test
  void processedAtDeadLetteredAtAndRetryAfterCountFromWhenThePublishReturned() throws Exception {
    for (String aggregate : List.of("published", "refused", "retried")) {
      TestSupport.insertPoison(db, aggregate, "'{}'", "'{}'");
    }
    TestClock clock = TestClock.now();
    CountDownLatch publishing = new CountDownLatch(1);
    CountDownLatch acknowledge = new CountDownLatch(1);
    AtomicReference<Instant> returned = new AtomicReference<>();
    Publisher blocking =
        new Publisher() {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> batch)
              throws InterruptedException {
            publishing.countDown();
            acknowledge.await();
            returned.set(clock.instant());
            return batch.stream()
                .map(
                    m ->
                        switch (m.aggregateId()) {
                          case "refused" -> PublishResult.permanent("refused");
                          case "retried" -> PublishResult.retryable("later");
                          default -> PublishResult.published();
                        })
                .toList();
          }

          @Override
          public String name() {
            return "blocking";
          }
        };
    OutboxRelay relay =
        TestSupport.relayBuilder(db, blocking)
            .clock(clock)
            .config(RelayConfig.builder().backoff(new Backoff(BACKOFF, BACKOFF, 1.0, 0.0)).build())
            .build();

    CompletableFuture<Integer> cycle =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return relay.runOnce();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(publishing.await(30, TimeUnit.SECONDS)).isTrue();
    clock.advance(BLOCKED); // the broker takes its time to acknowledge
    acknowledge.countDown();
    assertThat(cycle.get(30, TimeUnit.SECONDS)).isEqualTo(3);

    Instant answered = returned.get();
    assertThat(row("published").getProcessedAt().toInstant()).isAfterOrEqualTo(answered);
    assertThat(row("refused").getDeadLetteredAt().toInstant()).isAfterOrEqualTo(answered);
    assertThat(row("retried").getRetryAfter().toInstant()).isAfterOrEqualTo(answered.plus(BACKOFF));
  }

  private static OutboxEventsRecord row(String aggregate) {
    return mapped.fetchSingle(OUTBOX_EVENTS, OUTBOX_EVENTS.AGGREGATE_ID.eq(aggregate));
  }
}
