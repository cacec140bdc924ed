package dev.txoutbox;

import java.util.UUID;

/**
 * The root of the exceptions txoutbox throws for failures of its own (as opposed to bad arguments,
 * which are {@link IllegalArgumentException}s, and misuse, which is {@link IllegalStateException}).
 */
public class OutboxException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final UUID eventId;

  /** A failure not tied to one event. */
  public OutboxException(String message, Throwable cause) {
    super(message, cause);
    this.eventId = null;
  }

  /** A failure of the event {@code eventId}. */
  public OutboxException(String message, UUID eventId, Throwable cause) {
    super(message + " (event " + eventId + ")", cause);
    this.eventId = eventId;
  }

  /** The event the failure is about, or {@code null}. */
  public UUID eventId() {
    return eventId;
  }
}
