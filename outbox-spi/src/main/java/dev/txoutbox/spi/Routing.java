package dev.txoutbox.spi;

import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The routing rule every plugin follows, written once: a router that throws, returns {@code null},
 * returns nothing or a blank destination makes that event a {@linkplain PublishResult#permanent
 * permanent failure}, since asking again gives the same answer; the rest of the batch goes on.
 * Immutable.
 *
 * @param <D> where an event goes: a topic, a queue, an exchange and routing key
 */
public final class Routing<D> {

  private final @Nullable D destination;
  private final @Nullable PublishResult failure;

  private Routing(@Nullable D destination, @Nullable PublishResult failure) {
    this.destination = destination;
    this.failure = failure;
  }

  /**
   * Asks {@code router} where {@code message} goes.
   *
   * @param routerName how failures name the router, such as {@code "Kafka topic router"}
   */
  public static <D> Routing<D> route(
      OutboxMessage message,
      String routerName,
      Function<? super OutboxMessage, Optional<D>> router) {
    Optional<D> routed;
    try {
      routed = router.apply(message);
    } catch (RuntimeException e) {
      return new Routing<>(null, PublishResult.permanent("the " + routerName + " failed: " + e, e));
    }
    if (routed == null) {
      return new Routing<>(
          null, PublishResult.permanent("the " + routerName + " returned null instead of a route"));
    }
    if (routed.isEmpty()
        || (routed.get() instanceof CharSequence text && text.toString().isBlank())) {
      return new Routing<>(
          null,
          PublishResult.permanent(
              "the "
                  + routerName
                  + " has no route for aggregate type '"
                  + message.aggregateType()
                  + "' (event type '"
                  + message.eventType()
                  + "')"));
    }
    return new Routing<>(routed.get(), null);
  }

  /** Whether the router named a destination. */
  public boolean routed() {
    return failure == null;
  }

  /**
   * @throws IllegalStateException if the router named none
   */
  @SuppressWarnings("NullAway") // route() gives a destination to every Routing without a failure
  public D destination() {
    if (failure != null) {
      throw new IllegalStateException("no destination: " + failure.reason());
    }
    return destination;
  }

  /**
   * The permanent failure of an event the router named no destination for.
   *
   * @throws IllegalStateException if it named one
   */
  public PublishResult failure() {
    if (failure == null) {
      throw new IllegalStateException("no failure: the router named destination " + destination);
    }
    return failure;
  }
}
