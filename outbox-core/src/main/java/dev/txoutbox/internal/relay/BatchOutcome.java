package dev.txoutbox.internal.relay;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.internal.relay.RelayStore.Failure;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * What became of each message of a batch: which ids to complete, which failures to record, and, for
 * reporting after commit, what happened to each message.
 */
final class BatchOutcome {

  /** Longest stored {@code last_error}, in characters. */
  static final int MAX_ERROR_LENGTH = 2000;

  /** One message's fate. {@code delay} is set for a retry, null otherwise. */
  record Fate(OutboxMessage message, PublishResult result, Duration delay) {
    boolean deadLettered() {
      return !result.isPublished() && !result.isBrokerUnavailable() && delay == null;
    }
  }

  static final BatchOutcome EMPTY = new BatchOutcome(List.of(), List.of(), List.of());

  private final List<UUID> publishedIds;
  private final List<Failure> failures;
  private final List<Fate> fates;

  private BatchOutcome(List<UUID> publishedIds, List<Failure> failures, List<Fate> fates) {
    this.publishedIds = publishedIds;
    this.failures = failures;
    this.fates = fates;
  }

  /**
   * Decides every message's fate from its result: complete, retry after backoff, or dead letter.
   */
  static BatchOutcome of(
      List<OutboxMessage> messages,
      List<PublishResult> results,
      RelayConfig config,
      OffsetDateTime now,
      RandomGenerator random) {
    List<UUID> published = new ArrayList<>(messages.size());
    List<Failure> failures = new ArrayList<>();
    List<Fate> fates = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      PublishResult result = results.get(i);
      if (result.isPublished()) {
        published.add(message.id());
        fates.add(new Fate(message, result, null));
        continue;
      }
      if (result.isBrokerUnavailable()) {
        // Nothing is known about the message: no attempt counted, the row is left as it was.
        fates.add(new Fate(message, result, null));
        continue;
      }
      String error = describe(result);
      boolean dead = result.isPermanent() || message.attempt() >= config.maxAttempts();
      if (dead) {
        failures.add(new Failure(message.id(), null, error, now));
        fates.add(new Fate(message, result, null));
      } else {
        Duration delay = config.backoff().delayAfter(message.attempt(), random);
        failures.add(new Failure(message.id(), now.plus(delay), error, null));
        fates.add(new Fate(message, result, delay));
      }
    }
    return new BatchOutcome(published, failures, fates);
  }

  private static String describe(PublishResult result) {
    // Plugins often put the exception's text in the reason already: then it is not repeated.
    Throwable cause = result.cause();
    boolean told =
        cause == null
            || (cause.getMessage() != null
                && !cause.getMessage().isBlank()
                && result.reason().contains(cause.getMessage()));
    String text = told ? result.reason() : result.reason() + ": " + cause;
    return text.length() <= MAX_ERROR_LENGTH ? text : text.substring(0, MAX_ERROR_LENGTH - 1) + "…";
  }

  List<UUID> publishedIds() {
    return publishedIds;
  }

  List<Failure> failures() {
    return failures;
  }

  List<Fate> fates() {
    return fates;
  }

  int claimed() {
    return fates.size();
  }
}
