package dev.txoutbox.cli;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** Puts outbox rows in a known state through the core API. */
final class OutboxFixture {

  private final TestDatabase db;
  private final Outbox outbox;
  private final DSLContext dsl;

  OutboxFixture(TestDatabase db) {
    this.db = db;
    this.outbox = Outbox.builder().schema(db.schema()).build();
    this.dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  /** Writes {@code count} pending events of {@code eventType}, committed. */
  List<UUID> pending(String eventType, int count) {
    List<UUID> ids = new ArrayList<>();
    for (int from = 0; from < count; from += 1000) {
      List<OutboxEvent> events =
          IntStream.range(from, Math.min(count, from + 1000))
              .mapToObj(i -> OutboxEvent.of("order", "o-" + i, eventType, "{\"n\":" + i + "}"))
              .toList();
      dsl.transaction(tx -> ids.addAll(outbox.recordAll(tx.dsl(), events)));
    }
    return ids;
  }

  /**
   * Writes {@code count} events of {@code eventType} and makes them dead letters; other due events
   * are published.
   */
  List<UUID> deadLetters(String eventType, int count) {
    List<UUID> ids = pending(eventType, count);
    drain(
        m ->
            m.eventType().equals(eventType)
                ? PublishResult.permanent("broker rejected event " + m.id() + ": too large")
                : PublishResult.published(),
        1);
    return ids;
  }

  /** Publishes every due event, successfully, marking it processed. */
  void processAll() {
    drain(m -> PublishResult.published(), 10);
  }

  long count(String where) {
    return dsl.fetchSingle("select count(*) from " + db.schema() + ".outbox_events where " + where)
        .get(0, Long.class);
  }

  void execute(String sql) {
    db.execute(sql.replace("${schema}", db.schema()));
  }

  private void drain(Function<OutboxMessage, PublishResult> outcome, int maxAttempts) {
    Publisher publisher = messages -> messages.stream().map(outcome).toList();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .publisher(publisher)
            .config(RelayConfig.builder().batchSize(1000).maxAttempts(maxAttempts).build())
            .build();
    try {
      while (relay.runOnce() > 0) {
        // until nothing is due
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
