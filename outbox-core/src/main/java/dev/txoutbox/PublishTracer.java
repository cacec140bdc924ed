package dev.txoutbox;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.util.List;

/**
 * Traces the relay's publish attempts: the relay calls {@link #begin} right before it hands a batch
 * to its {@link Publisher}, publishes {@link Attempt#messages()} instead of the batch, and reports
 * the outcome with {@link Attempt#end(List)} or, if {@code publish} threw, {@link
 * Attempt#failed(Throwable)}. Exactly one of the two, once per attempt.
 *
 * <pre>{@code
 * PublishTracer.Attempt attempt = tracer.begin(relayName, publisher, batch);
 * List<PublishResult> results;
 * try {
 *   results = publisher.publish(attempt.messages());
 * } catch (InterruptedException | RuntimeException e) {
 *   attempt.failed(e);
 *   throw e;
 * }
 * attempt.end(results);
 * }</pre>
 *
 * <p>This interface names no tracing library, so the relay refers to it whether or not one is on
 * the class path: {@link #none()} when tracing is off, {@link
 * dev.txoutbox.tracing.OpenTelemetryPublishTracer} for OpenTelemetry. Implementations must be
 * thread-safe: a relay with several workers begins attempts on several threads at once.
 */
public interface PublishTracer {

  /**
   * Starts tracing one publish attempt of {@code batch}. Never throws for a message it cannot
   * trace: that message is published untraced.
   *
   * @param relayName the relay's name, for the spans' attributes
   * @param publisher the publisher about to send the batch; asked for the destination of each
   *     message ({@link Publisher#destinationName}), never for a send
   * @param batch the claimed messages, in publish order; may be empty
   * @return the attempt, whose {@link Attempt#messages()} the relay publishes
   * @throws NullPointerException if an argument is null
   */
  Attempt begin(String relayName, Publisher publisher, List<OutboxMessage> batch);

  /**
   * The tracer of a relay without tracing: publishes every batch unchanged and records nothing.
   * Loads no tracing library.
   */
  static PublishTracer none() {
    return Untraced.TRACER;
  }

  /**
   * One publish attempt of one batch, begun by {@link PublishTracer#begin}. Ended once, by {@link
   * #end(List)} or {@link #failed(Throwable)}; later calls do nothing. Safe to end from another
   * thread than the one that began it.
   */
  interface Attempt {

    /**
     * The batch to publish: the same messages in the same order, each one's headers carrying the
     * trace context of its send span in place of the writer's, so a consumer that continues the
     * trace from the broker message's headers becomes that span's child. The batch itself (the same
     * list instance) when nothing is traced.
     */
    List<OutboxMessage> messages();

    /**
     * Ends the attempt with the publisher's results, one per message in order; a list of another
     * size ends it as {@link #failed(Throwable)} with an {@link IllegalStateException} saying so.
     *
     * @throws NullPointerException if {@code results} is null
     */
    void end(List<PublishResult> results);

    /**
     * Ends the attempt after {@code publish} threw: every message of the batch failed with {@code
     * error}.
     *
     * @throws NullPointerException if {@code error} is null
     */
    void failed(Throwable error);
  }
}
