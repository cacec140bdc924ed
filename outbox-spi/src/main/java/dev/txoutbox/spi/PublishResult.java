package dev.txoutbox.spi;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of publishing one message. Immutable and thread-safe.
 *
 * @param status what happened
 * @param reason why it failed, for operators; {@code null} for a success
 * @param cause the exception behind the failure, if any
 */
public record PublishResult(Status status, @Nullable String reason, @Nullable Throwable cause) {

  /** What happened to a message. */
  public enum Status {
    /** The broker acknowledged the message. The event is marked processed. */
    PUBLISHED,
    /** Not delivered, may succeed later. The event is retried with backoff. */
    RETRYABLE_FAILURE,
    /** Not delivered and never will be. The event becomes a dead letter at once. */
    PERMANENT_FAILURE,
    /**
     * Not delivered because the broker cannot be reached or refuses all work (connection refused,
     * metadata timeout, connection blocked, throttled, 5xx): nothing is known to be wrong with this
     * message. The event costs no attempt and stays pending; the relay stops claiming and probes
     * the broker until it answers again.
     */
    BROKER_UNAVAILABLE
  }

  private static final PublishResult PUBLISHED = new PublishResult(Status.PUBLISHED, null, null);

  /**
   * @throws NullPointerException if {@code status} is null, or a failure has no reason
   */
  public PublishResult {
    Objects.requireNonNull(status, "status");
    if (status != Status.PUBLISHED) {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The broker acknowledged the message. */
  public static PublishResult published() {
    return PUBLISHED;
  }

  /** The message was not delivered but may be later. */
  public static PublishResult retryable(String reason) {
    return new PublishResult(Status.RETRYABLE_FAILURE, reason, null);
  }

  /** The message was not delivered but may be later. */
  public static PublishResult retryable(String reason, @Nullable Throwable cause) {
    return new PublishResult(Status.RETRYABLE_FAILURE, reason, cause);
  }

  /** The message can never be delivered; the event becomes a dead letter. */
  public static PublishResult permanent(String reason) {
    return new PublishResult(Status.PERMANENT_FAILURE, reason, null);
  }

  /** The message can never be delivered; the event becomes a dead letter. */
  public static PublishResult permanent(String reason, @Nullable Throwable cause) {
    return new PublishResult(Status.PERMANENT_FAILURE, reason, cause);
  }

  /**
   * The broker is unavailable: the message was not delivered, through no fault of its own. The
   * event keeps its attempt count; the relay pauses claiming until the broker is back.
   */
  public static PublishResult brokerUnavailable(String reason) {
    return new PublishResult(Status.BROKER_UNAVAILABLE, reason, null);
  }

  /**
   * The broker is unavailable: the message was not delivered, through no fault of its own. The
   * event keeps its attempt count; the relay pauses claiming until the broker is back.
   */
  public static PublishResult brokerUnavailable(String reason, @Nullable Throwable cause) {
    return new PublishResult(Status.BROKER_UNAVAILABLE, reason, cause);
  }

  /** Whether the broker acknowledged the message. */
  public boolean isPublished() {
    return status == Status.PUBLISHED;
  }

  /** Whether the failure is permanent. */
  public boolean isPermanent() {
    return status == Status.PERMANENT_FAILURE;
  }

  /** Whether the broker was unavailable, which says nothing about the message. */
  public boolean isBrokerUnavailable() {
    return status == Status.BROKER_UNAVAILABLE;
  }
}
