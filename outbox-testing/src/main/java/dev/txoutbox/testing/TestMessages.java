package dev.txoutbox.testing;

import dev.txoutbox.spi.OutboxMessage;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Outbox messages for tests of publishers, routers and relay listeners, as the relay would hand
 * them over: {@link #message()} is an {@link OutboxMessage.Builder} with every field filled in, so
 * a test sets only what it is about.
 *
 * <pre>{@code
 * OutboxMessage paid =
 *     TestMessages.message().eventType("order.paid").payload("{\"total\": 42}").build();
 * }</pre>
 *
 * <p>This class is thread-safe.
 */
public final class TestMessages {

  private static final AtomicLong SEQUENCE = new AtomicLong();

  private TestMessages() {}

  /**
   * A builder of a first attempt at a new event: a random id, the next sequence number (counted
   * from 1 across the JVM, so the messages of one test come in ascending sequence as a relay hands
   * them over), aggregate {@code order}/{@code o-1}, event type {@code order.created}, payload
   * {@code {}}, no headers, created now (to the millisecond, the precision brokers carry) and
   * attempt 1. Each call gives a new builder.
   */
  public static OutboxMessage.Builder message() {
    return OutboxMessage.builder()
        .id(UUID.randomUUID())
        .sequence(SEQUENCE.incrementAndGet())
        .aggregateType("order")
        .aggregateId("o-1")
        .eventType("order.created")
        .payload("{}")
        .createdAt(Instant.now().truncatedTo(ChronoUnit.MILLIS))
        .attempt(1);
  }
}
