package dev.txoutbox.kafka.e2e;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;

/** The database side of the end-to-end tests: a writer, an admin, and counting listeners. */
final class RelayFixture implements AutoCloseable {

  final TestDatabase db;
  final DSLContext dsl;
  final Outbox outbox;
  final OutboxAdmin admin;

  RelayFixture(String name) {
    db = TestDatabase.create(name);
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    outbox = Outbox.builder().schema(db.schema()).build();
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
  }

  /** The outbox table of this fixture's schema. */
  Table<Record> events() {
    return DSL.table(DSL.name(db.schema(), "outbox_events"));
  }

  /** Writes {@code events} in one transaction of the caller's kind, and returns their ids. */
  List<UUID> write(List<OutboxEvent> events) {
    return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
  }

  @Override
  public void close() {
    db.close();
  }

  static String eventId(ConsumerRecord<String, byte[]> record) {
    return header(record, OutboxHeaders.EVENT_ID);
  }

  static String header(ConsumerRecord<String, byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  static Duration patience() {
    return Duration.ofMinutes(2);
  }

  /** Counts what the relay reports, for assertions that failures were retried, not dropped. */
  static final class CountingListener implements RelayListener {
    final AtomicInteger published = new AtomicInteger();
    final AtomicInteger retries = new AtomicInteger();
    final AtomicInteger deadLetters = new AtomicInteger();
    final AtomicInteger unavailable = new AtomicInteger();
    final AtomicInteger available = new AtomicInteger();

    @Override
    public void published(OutboxMessage message) {
      published.incrementAndGet();
    }

    @Override
    public void willRetry(OutboxMessage message, PublishResult failure, Duration delay) {
      retries.incrementAndGet();
    }

    @Override
    public void deadLettered(OutboxMessage message, PublishResult failure) {
      deadLetters.incrementAndGet();
    }

    @Override
    public void brokerUnavailable(String reason) {
      unavailable.incrementAndGet();
    }

    @Override
    public void brokerAvailable(Duration outage) {
      available.incrementAndGet();
    }
  }
}
