package dev.txoutbox.cli;

import dev.txoutbox.RelayConfig;

/**
 * The polling relay's configuration as the relay's start line says it, in the words and units of
 * its flags, and the parts both relays share. Stateless.
 */
final class RelayStartLine {

  private RelayStartLine() {}

  /** The polling relay's configuration; {@code listen} when it also wakes up on NOTIFY. */
  static String describe(RelayConfig c, boolean listen) {
    return "batch size "
        + c.batchSize()
        + ", workers "
        + c.workers()
        + attemptsAndOrder(c)
        + ", poll "
        + Durations.format(c.minPollInterval())
        + " to "
        + Durations.format(c.maxPollInterval())
        + backoffAndShutdown(c)
        + (listen ? ", listening for NOTIFY" : "")
        + RetryPolicyText.perType(c);
  }

  /**
   * What both relays take from {@code c} before their own settings: attempts, completion, order.
   */
  static String attemptsAndOrder(RelayConfig c) {
    return ", max attempts "
        + c.maxAttempts()
        + ", completion "
        + RelayFlags.COMPLETION.word(c.completionMode())
        + ", ordering "
        + RelayFlags.ORDERING.word(c.ordering());
  }

  /** What both relays take from {@code c} after their own settings: the backoff, the shutdown. */
  static String backoffAndShutdown(RelayConfig c) {
    return ", backoff "
        + Durations.format(c.backoff().initialDelay())
        + " to "
        + Durations.format(c.backoff().maxDelay())
        + RetryPolicyText.defaultExtras(c)
        + ", shutdown timeout "
        + Durations.format(c.shutdownTimeout());
  }
}
