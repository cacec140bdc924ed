package dev.txoutbox;

/** What the relay does with an event once the broker acknowledged it. */
public enum CompletionMode {
  /**
   * Set {@code processed_at} and keep the row until retention cleanup removes it ({@link
   * OutboxAdmin#cleanupProcessed}). Lets operators see what was published, and when.
   */
  MARK_PROCESSED,
  /** Delete the row at once. Fastest, and the table stays small; nothing to clean up. */
  DELETE
}
