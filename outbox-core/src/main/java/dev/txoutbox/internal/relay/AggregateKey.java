package dev.txoutbox.internal.relay;

import dev.txoutbox.spi.OutboxMessage;

/** An aggregate, the unit of order in the per-aggregate modes: its type and its id. */
record AggregateKey(String type, String id) {

  static AggregateKey of(OutboxMessage message) {
    return new AggregateKey(message.aggregateType(), message.aggregateId());
  }
}
