package dev.txoutbox.spi;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Sends outbox messages to a broker. This interface is the whole contract between the relay and a
 * broker plugin.
 *
 * <h2>What the relay does</h2>
 *
 * The relay claims a batch of pending events inside a database transaction, calls {@link
 * #publish(List)} once with the whole batch, then records every outcome and commits. An event is
 * marked processed only when its result is {@link PublishResult#published()}; every other outcome
 * leaves it pending (retryable or broker unavailable) or makes it a dead letter (permanent). If
 * {@code publish} throws, every message of the batch counts as a retryable failure.
 *
 * <h2>What an implementation must do</h2>
 *
 * <ul>
 *   <li><b>Send the batch at once.</b> Start every send asynchronously, then wait for all
 *       acknowledgements within a deadline of the plugin's own. Never one blocking round trip per
 *       message.
 *   <li><b>Report success only on the broker's acknowledgement</b> of that exact message (Kafka
 *       {@code acks=all}, an SQS batch entry's success, a RabbitMQ publisher confirm without a
 *       {@code basic.return}). Unknown outcomes (timeout, lost connection) are retryable failures:
 *       the message may be sent twice, never lost.
 *   <li><b>Classify failures</b> into three kinds, because only a failure of the message itself may
 *       cost it an attempt:
 *       <ul>
 *         <li>{@link PublishResult#brokerUnavailable(String, Throwable)} when the broker cannot be
 *             reached or refuses all work (connection refused, metadata or connection timeout,
 *             connection blocked, throttling, server errors). It says nothing about the message:
 *             the event costs no attempt, and the relay stops claiming and sends a small probe
 *             batch now and then until one is acknowledged. A long outage never makes a healthy
 *             event a dead letter.
 *         <li>{@link PublishResult#retryable(String, Throwable)} for a failure of this message that
 *             may pass later (a timeout on this message alone, a leader change for its partition).
 *             It costs an attempt, and after {@code maxAttempts} the event is a dead letter.
 *         <li>{@link PublishResult#permanent(String, Throwable)} for what never will pass (message
 *             too large, unknown destination, unroutable, authorization). The event becomes a dead
 *             letter at once.
 *       </ul>
 *       When in doubt between the first two, prefer broker unavailable for errors that would fail
 *       every message alike, and retryable for errors tied to this message.
 *   <li><b>Keep each aggregate's events in order.</b> A batch lists the events of one aggregate
 *       (same {@link OutboxMessage#aggregateType()} and {@link OutboxMessage#aggregateId()}) in
 *       ascending {@link OutboxMessage#sequence()}; in the relay's per-aggregate ordered modes they
 *       are runs of consecutive events. Deliver them in that order: Kafka, the same key and
 *       partition (the idempotent producer keeps the order of one partition); SQS FIFO, one message
 *       group, sent in order; RabbitMQ, one channel, in publish order. Once one of them fails (any
 *       result but published), report none of the later ones of that aggregate in the batch as
 *       published, and do not send them if they are not sent yet: answer them {@link
 *       RunOrder#NOT_SENT} as a retryable failure (broker unavailable if the earlier failure was).
 *       The relay enforces this too: after the first result of an aggregate that is not published,
 *       it treats the later ones of that aggregate in the batch as not attempted, whatever they say
 *       (no attempt counted, the row left as it was), and claims them again after the one that
 *       failed. One that was sent anyway reaches the broker twice, which consumers that drop
 *       duplicates by event id absorb, but it also arrives before the event that failed.
 *   <li><b>Return exactly one result per message, in the order of the input list.</b> A result list
 *       of another size is treated as a retryable failure of the whole batch.
 *   <li><b>Carry the event's identity</b>: put {@link OutboxHeaders} and {@link
 *       OutboxMessage#headers()} on the broker message so consumers can drop duplicates.
 *   <li><b>Honour interruption.</b> The relay interrupts a publishing thread when its shutdown
 *       deadline passes; throw {@link InterruptedException} (or return) promptly, and the batch is
 *       rolled back and published again later. One convention, as everywhere in txoutbox: throwing
 *       {@code InterruptedException} means the thread's interrupt flag is cleared (do not set it
 *       again before throwing); catching it and returning normally means setting it again ({@code
 *       Thread.currentThread().interrupt()}).
 * </ul>
 *
 * <p>Implementations must be thread-safe: a relay with several workers calls {@code publish} from
 * several threads at once.
 */
public interface Publisher extends AutoCloseable {

  /**
   * Publishes {@code messages} and reports each one's outcome.
   *
   * @param messages the batch, in the order the relay wants them sent (ascending sequence, so each
   *     aggregate's events in order); never empty
   * @return one result per message, in the same order
   * @throws InterruptedException if the calling thread is interrupted while waiting for
   *     acknowledgements
   */
  List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException;

  /** A short name for logs and metrics, such as {@code kafka}. Defaults to the class name. */
  default String name() {
    return getClass().getSimpleName();
  }

  /**
   * The broker's name in the OpenTelemetry messaging conventions ({@code messaging.system}): {@code
   * kafka}, {@code rabbitmq}, {@code aws_sqs}. Tracing (core's {@code dev.txoutbox.tracing}) puts
   * it on each send span. Defaults to {@code null}: unknown, and then left out.
   */
  default @Nullable String messagingSystem() {
    return null;
  }

  /**
   * Where {@link #publish} would send {@code message}, as the OpenTelemetry messaging conventions
   * name it ({@code messaging.destination.name}): the Kafka topic, the RabbitMQ exchange ({@code
   * ""} for the default exchange), the SQS queue name. Tracing calls it for each message of a
   * traced batch, just before publishing it, so it must be cheap and free of side effects: ask the
   * plugin's router, never the broker. Never throws: a router that fails or names no destination
   * gives {@code null} (and {@link #publish} then reports that message a permanent failure).
   * Thread-safe, like {@link #publish}. Defaults to {@code null}: unknown.
   *
   * @param message a message of a batch about to be published
   * @return the destination's name, or {@code null} if unknown
   */
  default @Nullable String destinationName(OutboxMessage message) {
    return null;
  }

  /**
   * Further attributes of the OpenTelemetry messaging conventions for {@code message}, specific to
   * this broker and named as the conventions name them, such as {@code
   * messaging.rabbitmq.destination.routing_key} or {@code messaging.kafka.message.key}. Same rules
   * as {@link #destinationName}: cheap, no side effect, no broker call, never throws (a router
   * failure gives an empty map). Must hold no secret. Defaults to an empty map.
   *
   * @param message a message of a batch about to be published
   * @return attribute name to value; never {@code null}
   */
  default Map<String, String> messagingAttributes(OutboxMessage message) {
    return Map.of();
  }

  /**
   * The publisher's effective configuration for the relay's start-up log line, such as {@code
   * kafka{bootstrap.servers=k1:9092, acks=all, sasl.jaas.config=****}}. Must never contain a
   * secret: mask settings, URIs and texts with {@link SecretMasking}, the rule every module shares.
   * Defaults to {@link #name()}.
   */
  default String describe() {
    return name();
  }

  /**
   * Checks once that the broker answers and accepts this publisher (address, credentials, virtual
   * host or cluster), for the relay or the CLI to call at start: a wrong password is then reported
   * at once, instead of as an outage when the first event is pending. Sends no message, and leaves
   * the publisher as it was (a plugin may use a connection of its own and close it). Never throws
   * for a broker problem: the verdict says it. Takes about {@code timeout} at most. Thread-safe,
   * like {@link #publish}. Defaults to {@link BrokerCheck#notChecked(String)}: nothing to check.
   *
   * @param timeout how long the check may wait for the broker; must be positive
   * @return {@link BrokerCheck.Status#REACHABLE REACHABLE}, {@link BrokerCheck.Status#UNREACHABLE
   *     UNREACHABLE} with the reason (secrets masked), or {@link BrokerCheck.Status#NOT_CHECKED
   *     NOT_CHECKED}
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is not positive
   * @throws InterruptedException if interrupted while waiting for the broker
   */
  default BrokerCheck checkBroker(Duration timeout) throws InterruptedException {
    BrokerCheck.requirePositive(timeout);
    return BrokerCheck.notChecked(name() + ": no broker check");
  }

  /**
   * Releases the broker client. The relay never calls this: whoever created the publisher closes
   * it, after closing the relay. Must be idempotent. Defaults to doing nothing.
   */
  @Override
  default void close() {}
}
