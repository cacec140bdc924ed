package dev.txoutbox.guice;

import dev.txoutbox.OutboxRelay;
import dev.txoutbox.spi.Publisher;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One outbox an {@link OutboxLifecycle} runs: a name for messages, its relay and the relay's
 * publisher, each made when first asked for (so an injector's singletons are created by the
 * lifecycle's start, not by the injector's creation). Immutable.
 */
final class ManagedOutbox {

  private final String name;
  private final Supplier<OutboxRelay> relay;
  private final Supplier<Publisher> publisher;

  ManagedOutbox(String name, Supplier<OutboxRelay> relay, Supplier<Publisher> publisher) {
    this.name = Objects.requireNonNull(name, "name");
    this.relay = Objects.requireNonNull(relay, "relay");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
  }

  String name() {
    return name;
  }

  OutboxRelay relay() {
    return relay.get();
  }

  Publisher publisher() {
    return publisher.get();
  }
}
