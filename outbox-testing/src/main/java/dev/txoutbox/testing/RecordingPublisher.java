package dev.txoutbox.testing;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.RunOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A {@link Publisher} for tests: it acknowledges every message unless told to fail some, and
 * records every message it was given with the outcome it reported, for assertions that read like
 * the requirement:
 *
 * <pre>{@code
 * RecordingPublisher publisher = new RecordingPublisher();
 * // ... relay built with .publisher(publisher), events written, relay.drain()
 * publisher.assertPublished()
 *     .containsExactlyEventTypes("order.created", "order.paid")
 *     .inOrderForAggregate("order", orderId, "order.created", "order.paid")
 *     .allHaveHeader("traceparent");
 * }</pre>
 *
 * <p>Failures are scripted, checked in this order for each message: {@link #failNext(int,
 * PublishResult) the next n messages}, then {@link #failWhen(Predicate, PublishResult) predicates}
 * in the order they were added, then the {@link #answer(Function) answer function} (by default:
 * published). Each outcome is a {@link PublishResult} as a real plugin reports it: retryable,
 * permanent or broker unavailable.
 *
 * <p>Like a real plugin it keeps the {@link RunOrder run-order rule}: once a message of an
 * aggregate is not published, the later ones of that aggregate in the batch are not sent and are
 * answered {@link RunOrder#NOT_SENT}, without consulting the script; they are recorded as attempts
 * with that answer.
 *
 * <p>This class is thread-safe: batches from several relay workers are handled one at a time.
 */
public final class RecordingPublisher implements Publisher {

  /** The reason of a failure scripted without one. */
  public static final String SCRIPTED_FAILURE = "scripted failure";

  /**
   * One message the publisher was given and what it answered.
   *
   * @param message the message as the relay handed it over
   * @param result the answer
   * @param batch which {@code publish} call it came in, from 1
   */
  public record Attempt(OutboxMessage message, PublishResult result, int batch) {

    /** Whether the answer was {@link PublishResult#published()}. */
    public boolean published() {
      return result.isPublished();
    }
  }

  private record Rule(Predicate<OutboxMessage> matches, PublishResult result) {}

  private final Object lock = new Object();
  private final List<Attempt> attempts = new ArrayList<>();
  private final List<Rule> rules = new ArrayList<>();
  private Function<OutboxMessage, PublishResult> answer = m -> PublishResult.published();
  private int failNext;
  private PublishResult failNextResult = PublishResult.retryable(SCRIPTED_FAILURE);
  private int batches;

  /** A publisher that acknowledges every message. */
  public RecordingPublisher() {}

  /**
   * Fails the next {@code messages} messages it is asked to send (messages, not batches) with a
   * retryable failure, then goes back to the rest of the script. Replaces an earlier {@code
   * failNext}.
   *
   * @return this publisher
   * @throws IllegalArgumentException if {@code messages} is negative
   */
  public RecordingPublisher failNext(int messages) {
    return failNext(messages, PublishResult.retryable(SCRIPTED_FAILURE));
  }

  /**
   * Fails the next {@code messages} messages it is asked to send with {@code result}, such as
   * {@code PublishResult.permanent("record too large")} or {@code
   * PublishResult.brokerUnavailable("connection refused")}. Replaces an earlier {@code failNext}.
   *
   * @return this publisher
   * @throws NullPointerException if {@code result} is null
   * @throws IllegalArgumentException if {@code messages} is negative or {@code result} is published
   */
  public RecordingPublisher failNext(int messages, PublishResult result) {
    if (messages < 0) {
      throw new IllegalArgumentException("messages must be at least 0 but was " + messages);
    }
    requireFailure(result);
    synchronized (lock) {
      failNext = messages;
      failNextResult = result;
    }
    return this;
  }

  /**
   * Fails every message matching {@code matches} with a retryable failure, until {@link
   * #clearFailures()}.
   *
   * @return this publisher
   * @throws NullPointerException if {@code matches} is null
   */
  public RecordingPublisher failWhen(Predicate<OutboxMessage> matches) {
    return failWhen(matches, PublishResult.retryable(SCRIPTED_FAILURE));
  }

  /**
   * Fails every message matching {@code matches} with {@code result}, until {@link
   * #clearFailures()}: {@code failWhen(m -> m.eventType().equals("order.bad"),
   * PublishResult.permanent("unroutable"))}.
   *
   * @return this publisher
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code result} is published
   */
  public RecordingPublisher failWhen(Predicate<OutboxMessage> matches, PublishResult result) {
    Objects.requireNonNull(matches, "matches");
    requireFailure(result);
    synchronized (lock) {
      rules.add(new Rule(matches, result));
    }
    return this;
  }

  /**
   * Answers each message that no {@code failNext} or {@code failWhen} applies to with {@code
   * answer}'s result, any outcome. Replaces the earlier answer; the default publishes.
   *
   * @return this publisher
   * @throws NullPointerException if {@code answer} is null
   */
  public RecordingPublisher answer(Function<OutboxMessage, PublishResult> answer) {
    Objects.requireNonNull(answer, "answer");
    synchronized (lock) {
      this.answer = answer;
    }
    return this;
  }

  /** Drops every scripted failure and answer: from now on every message is published. */
  public RecordingPublisher clearFailures() {
    synchronized (lock) {
      rules.clear();
      failNext = 0;
      answer = m -> PublishResult.published();
    }
    return this;
  }

  /** Forgets what was recorded (attempts and batches); the script stays. */
  public void clearRecords() {
    synchronized (lock) {
      attempts.clear();
      batches = 0;
    }
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages) {
    synchronized (lock) {
      int batch = ++batches;
      RunOrder runOrder = new RunOrder();
      List<PublishResult> results = new ArrayList<>(messages.size());
      for (OutboxMessage m : messages) {
        PublishResult held = runOrder.heldBack(m);
        PublishResult result = held != null ? held : runOrder.outcome(m, scripted(m));
        attempts.add(new Attempt(m, result, batch));
        results.add(result);
      }
      return results;
    }
  }

  private PublishResult scripted(OutboxMessage m) {
    if (failNext > 0) {
      failNext--;
      return failNextResult;
    }
    for (Rule rule : rules) {
      if (rule.matches().test(m)) {
        return rule.result();
      }
    }
    return Objects.requireNonNull(answer.apply(m), "the answer function returned null");
  }

  @Override
  public String name() {
    return "recording";
  }

  /** Every message it was given, with its answer, in the order they came. */
  public List<Attempt> attempts() {
    synchronized (lock) {
      return List.copyOf(attempts);
    }
  }

  /** Every message it was given, whatever it answered, in the order they came. */
  public List<OutboxMessage> attempted() {
    synchronized (lock) {
      return attempts.stream().map(Attempt::message).toList();
    }
  }

  /**
   * The messages it acknowledged, in the order it acknowledged them (a duplicate appears twice).
   */
  public List<OutboxMessage> published() {
    synchronized (lock) {
      return attempts.stream().filter(Attempt::published).map(Attempt::message).toList();
    }
  }

  /** The ids of {@link #published()}, in the same order. */
  public List<UUID> publishedIds() {
    return published().stream().map(OutboxMessage::id).toList();
  }

  /** How many times each event was acknowledged: more than once means a duplicate delivery. */
  public Map<UUID, Long> publishCounts() {
    return published().stream()
        .collect(Collectors.groupingBy(OutboxMessage::id, Collectors.counting()));
  }

  /** The messages it answered with anything but published, with the answers. */
  public List<Attempt> failures() {
    return attempts().stream().filter(a -> !a.published()).toList();
  }

  /** How many times {@code publish} was called. */
  public int batches() {
    synchronized (lock) {
      return batches;
    }
  }

  /** Assertions on {@link #published()} as it is now. */
  public PublishedAssert assertPublished() {
    return new PublishedAssert(published());
  }

  private static void requireFailure(PublishResult result) {
    Objects.requireNonNull(result, "result");
    if (result.isPublished()) {
      throw new IllegalArgumentException("result must be a failure but was " + result);
    }
  }
}
