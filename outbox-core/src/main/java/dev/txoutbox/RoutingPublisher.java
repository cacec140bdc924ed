package dev.txoutbox;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.Routing;
import dev.txoutbox.spi.RunOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Publisher} that sends each event to one of several publishers, chosen by a key of the
 * event: its aggregate type, its event type, or any function of it. One outbox table can so feed
 * several brokers (or several clients of one broker) through one relay.
 *
 * <pre>{@code
 * Publisher publisher = RoutingPublisher.byAggregateType()
 *     .route("order", kafkaPublisher)
 *     .route("invoice", sqsPublisher)
 *     .build();
 * OutboxRelay relay = OutboxRelay.builder().dataSource(ds).publisher(publisher).build();
 * }</pre>
 *
 * <p><b>Batches.</b> Each call of {@link #publish(List)} forwards the events of one delegate as one
 * batch, in the order of the relay's batch, so every delegate still sends its events at once. The
 * delegates are called one after another on the relay's thread: a batch takes as long as its
 * delegates' batches together.
 *
 * <p><b>Order.</b> The events of one aggregate keep the {@link Publisher} contract's order. When
 * they all go to one delegate (always so when routing by aggregate type), that delegate keeps it.
 * When the key sends them to different delegates (routing by event type, say), the events after a
 * change of delegate are sent only once the earlier ones are answered, and once one fails none of
 * the later ones of its aggregate is sent ({@link RunOrder#NOT_SENT}).
 *
 * <p><b>Unknown routes.</b> An event whose key has no route (and no {@link
 * Builder#otherwise(Publisher) fallback}), or whose key function throws, is a {@linkplain
 * PublishResult#permanent permanent failure}: it becomes a dead letter with the reason, and the
 * rest of the batch goes on; nothing is thrown.
 *
 * <p><b>Lifecycle.</b> The routing publisher owns its delegates: {@link #close()} closes each of
 * them once. {@link #describe()} lists every route with its delegate's own {@code describe()}, for
 * the relay's start-up line.
 *
 * <p>This type is thread-safe if its delegates are.
 */
public final class RoutingPublisher implements Publisher {

  private final String by;
  private final Function<? super OutboxMessage, @Nullable String> key;
  private final Map<String, Publisher> routes;
  private final @Nullable Publisher otherwise;
  private final List<Publisher> delegates;
  private final Map<Publisher, Integer> delegateIndex = new IdentityHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private RoutingPublisher(Builder b) {
    this.by = b.by;
    this.key = b.key;
    this.routes = new LinkedHashMap<>(b.routes);
    this.otherwise = b.otherwise;
    List<Publisher> distinct = new ArrayList<>();
    List<Publisher> all = new ArrayList<>(routes.values());
    if (otherwise != null) {
      all.add(otherwise);
    }
    for (Publisher p : all) {
      if (!delegateIndex.containsKey(p)) {
        delegateIndex.put(p, distinct.size());
        distinct.add(p);
      }
    }
    this.delegates = List.copyOf(distinct);
  }

  /** Routes each event by its {@link OutboxMessage#aggregateType()}. */
  public static Builder byAggregateType() {
    return new Builder("aggregate type", OutboxMessage::aggregateType);
  }

  /** Routes each event by its {@link OutboxMessage#eventType()}. */
  public static Builder byEventType() {
    return new Builder("event type", OutboxMessage::eventType);
  }

  /**
   * Routes each event by the key {@code key} gives it; a {@code null} key has no route.
   *
   * @param description what the key is, for the start-up line and failure reasons, such as {@code
   *     "tenant header"}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code description} is blank
   */
  public static Builder by(
      String description, Function<? super OutboxMessage, @Nullable String> key) {
    Objects.requireNonNull(description, "description");
    if (description.isBlank()) {
      throw new IllegalArgumentException(
          "description must not be blank but was '" + description + "'");
    }
    return new Builder(description, Objects.requireNonNull(key, "key"));
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
    int n = messages.size();
    @Nullable PublishResult[] results = new PublishResult[n];
    int[] target = new int[n];
    int[] wave = new int[n];
    int waves = assignWaves(messages, results, target, wave);
    RunOrder order = new RunOrder();
    for (int w = 0; w < waves; w++) {
      List<List<Integer>> batches = new ArrayList<>(delegates.size());
      for (int d = 0; d < delegates.size(); d++) {
        batches.add(new ArrayList<>());
      }
      for (int i = 0; i < n; i++) {
        if (wave[i] != w) {
          continue;
        }
        OutboxMessage m = messages.get(i);
        PublishResult held = order.heldBack(m);
        if (held != null) {
          results[i] = held;
        } else if (target[i] < 0) {
          order.failed(m, Objects.requireNonNull(results[i]));
        } else {
          batches.get(target[i]).add(i);
        }
      }
      for (int d = 0; d < delegates.size(); d++) {
        List<Integer> batch = batches.get(d);
        if (batch.isEmpty()) {
          continue;
        }
        List<OutboxMessage> sub = new ArrayList<>(batch.size());
        batch.forEach(i -> sub.add(messages.get(i)));
        List<PublishResult> answered = publishTo(delegates.get(d), sub);
        for (int j = 0; j < batch.size(); j++) {
          int i = batch.get(j);
          results[i] = order.outcome(messages.get(i), answered.get(j));
        }
      }
    }
    return RunOrder.enforce(messages, Arrays.asList(results));
  }

  /**
   * Routes every message: {@code target[i]} is its delegate's index, or -1 with its permanent
   * failure in {@code results[i]}. {@code wave[i]} counts the changes of target within its
   * aggregate before it: events of one wave can be sent together, as each aggregate's events in a
   * wave go to one delegate. Returns the number of waves.
   */
  private int assignWaves(
      List<OutboxMessage> messages, @Nullable PublishResult[] results, int[] target, int[] wave) {
    Map<RunOrder.Aggregate, int[]> last = new HashMap<>(); // {target, wave} of its last event
    int waves = 1;
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage m = messages.get(i);
      Routing<Publisher> routing =
          Routing.route(m, "routing publisher's router by " + by, this::route);
      if (routing.routed()) {
        target[i] = Objects.requireNonNull(delegateIndex.get(routing.destination()));
      } else {
        target[i] = -1;
        results[i] = routing.failure();
      }
      int[] previous = last.get(RunOrder.Aggregate.of(m));
      wave[i] = previous == null ? 0 : previous[0] == target[i] ? previous[1] : previous[1] + 1;
      last.put(RunOrder.Aggregate.of(m), new int[] {target[i], wave[i]});
      waves = Math.max(waves, wave[i] + 1);
    }
    return waves;
  }

  private Optional<Publisher> route(OutboxMessage message) {
    String k = key.apply(message);
    Publisher p = k == null ? null : routes.get(k);
    return Optional.ofNullable(p == null ? otherwise : p);
  }

  /**
   * One delegate's answers to its part of the batch: a delegate that throws or answers the wrong
   * number of results fails its own part, as retryable, and the other delegates' parts stand.
   */
  private static List<PublishResult> publishTo(Publisher delegate, List<OutboxMessage> batch)
      throws InterruptedException {
    List<PublishResult> answered;
    try {
      answered = delegate.publish(List.copyOf(batch));
    } catch (RuntimeException e) {
      return all(
          batch.size(),
          PublishResult.retryable("publisher " + delegate.name() + " failed: " + e, e));
    }
    if (answered == null || answered.size() != batch.size()) {
      return all(
          batch.size(),
          PublishResult.retryable(
              "publisher "
                  + delegate.name()
                  + " must answer one result per message ("
                  + batch.size()
                  + ") but answered "
                  + (answered == null ? "null" : answered.size())));
    }
    List<PublishResult> checked = new ArrayList<>(answered);
    for (int j = 0; j < checked.size(); j++) {
      if (checked.get(j) == null) {
        checked.set(
            j, PublishResult.retryable("publisher " + delegate.name() + " answered no result"));
      }
    }
    return checked;
  }

  private static List<PublishResult> all(int n, PublishResult result) {
    List<PublishResult> same = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      same.add(result);
    }
    return same;
  }

  /** {@code routing}. */
  @Override
  public String name() {
    return "routing";
  }

  /**
   * The key and every route with its delegate's {@link Publisher#describe()}, such as {@code
   * routing{by aggregate type: order -> kafka{...}, invoice -> sqs{...}}}.
   */
  @Override
  public String describe() {
    StringBuilder text = new StringBuilder("routing{by ").append(by).append(':');
    String separator = " ";
    for (Map.Entry<String, Publisher> route : routes.entrySet()) {
      text.append(separator)
          .append(route.getKey())
          .append(" -> ")
          .append(describe(route.getValue()));
      separator = ", ";
    }
    if (otherwise != null) {
      text.append(separator).append("otherwise -> ").append(describe(otherwise));
    }
    return text.append('}').toString();
  }

  private static String describe(Publisher delegate) {
    try {
      return delegate.describe();
    } catch (RuntimeException e) {
      return delegate.name() + " (describe() failed: " + e.getClass().getName() + ")";
    }
  }

  /**
   * Closes every delegate once, even if one of them throws; the first exception is rethrown with
   * the others suppressed. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    RuntimeException first = null;
    for (Publisher delegate : delegates) {
      try {
        delegate.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** Configures a {@link RoutingPublisher}. Not thread-safe. */
  public static final class Builder {
    private final String by;
    private final Function<? super OutboxMessage, @Nullable String> key;
    private final Map<String, Publisher> routes = new LinkedHashMap<>();
    private @Nullable Publisher otherwise;

    private Builder(String by, Function<? super OutboxMessage, @Nullable String> key) {
      this.by = by;
      this.key = key;
    }

    /**
     * Sends the events whose key is {@code key} to {@code publisher}. One publisher may serve
     * several keys; it still gets one batch per relay batch.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code key} is blank or was routed already
     */
    public Builder route(String key, Publisher publisher) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(publisher, "publisher");
      if (key.isBlank()) {
        throw new IllegalArgumentException("key must not be blank but was '" + key + "'");
      }
      if (routes.containsKey(key)) {
        throw new IllegalArgumentException(
            "key must be routed once but '" + key + "' was routed twice");
      }
      routes.put(key, publisher);
      return this;
    }

    /**
     * Sends the events whose key has no route to {@code publisher}. Defaults to none: such an event
     * is a permanent failure.
     *
     * @throws NullPointerException if {@code publisher} is null
     */
    public Builder otherwise(Publisher publisher) {
      this.otherwise = Objects.requireNonNull(publisher, "publisher");
      return this;
    }

    /**
     * Makes the publisher.
     *
     * @throws IllegalStateException if no route and no fallback was given
     */
    public RoutingPublisher build() {
      if (routes.isEmpty() && otherwise == null) {
        throw new IllegalStateException(
            "RoutingPublisher must have at least one route(...) or otherwise(...) but has none");
      }
      return new RoutingPublisher(this);
    }
  }
}
