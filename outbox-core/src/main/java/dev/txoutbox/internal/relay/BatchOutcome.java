package dev.txoutbox.internal.relay;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.RetryPolicy;
import dev.txoutbox.internal.relay.RelayStore.Failure;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * What became of each message of a batch: which ids to complete, which failures to record, which
 * events the broker was unavailable to, and, for reporting after commit, what happened to each.
 *
 * <p>A batch lists each aggregate's events in {@code seq} order (in the per-aggregate orderings, as
 * runs of consecutive events). Once one of them is not published, the later ones of its aggregate
 * in the batch are not attempted, whatever the publisher reported, as the {@code Publisher}
 * contract says: their rows stay as they were, at no attempt, and they come again after the one
 * that failed.
 */
final class BatchOutcome {

  /**
   * One message's fate. {@code delay} is set for a retry, null otherwise; {@code attempted} is
   * false for a message that came after a failed one of its aggregate's run.
   */
  record Fate(
      OutboxMessage message, PublishResult result, @Nullable Duration delay, boolean attempted) {
    boolean deadLettered() {
      return attempted && !result.isPublished() && !result.isBrokerUnavailable() && delay == null;
    }

    boolean retried() {
      return attempted && delay != null;
    }
  }

  static final BatchOutcome EMPTY =
      new BatchOutcome(List.of(), List.of(), List.of(), List.of(), false, 0);

  private final List<UUID> publishedIds;
  private final List<Failure> failures;
  private final List<UUID> unavailableIds;
  private final List<Fate> fates;
  private final boolean answered;
  private final int unreadable;
  private final int retried;
  private final int deadLettered;

  private BatchOutcome(
      List<UUID> publishedIds,
      List<Failure> failures,
      List<UUID> unavailableIds,
      List<Fate> fates,
      boolean answered,
      int unreadable) {
    this.publishedIds = publishedIds;
    this.failures = failures;
    this.unavailableIds = unavailableIds;
    this.fates = fates;
    this.answered = answered;
    this.unreadable = unreadable;
    int retriedCount = 0;
    int deadCount = 0;
    for (Fate fate : fates) {
      retriedCount += fate.retried() ? 1 : 0;
      deadCount += fate.deadLettered() ? 1 : 0;
    }
    this.retried = retriedCount;
    this.deadLettered = deadCount + unreadable;
  }

  /**
   * Decides every message's fate from its result: complete, retry after backoff, dead letter, or,
   * when the broker was unavailable, nothing at all (no attempt is counted). {@code messages} lists
   * each aggregate's events in {@code seq} order. {@code answeredAt} is when the publisher returned
   * the results: dead letters are dated then and retries are due their backoff after it.
   */
  static BatchOutcome of(
      List<OutboxMessage> messages,
      List<PublishResult> results,
      RelayConfig config,
      OffsetDateTime answeredAt,
      RandomGenerator random) {
    List<UUID> published = new ArrayList<>(messages.size());
    List<Failure> failures = new ArrayList<>();
    List<UUID> unavailable = new ArrayList<>();
    List<Fate> fates = new ArrayList<>(messages.size());
    Set<AggregateKey> stopped = new HashSet<>();
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      PublishResult result = results.get(i);
      AggregateKey aggregate = AggregateKey.of(message);
      if (stopped.contains(aggregate)) {
        fates.add(new Fate(message, result, null, false));
        continue;
      }
      if (!result.isPublished()) {
        stopped.add(aggregate);
      }
      Fate fate =
          switch (result.status()) {
            case PUBLISHED -> {
              published.add(message.id());
              yield new Fate(message, result, null, true);
            }
            case BROKER_UNAVAILABLE -> {
              unavailable.add(message.id());
              yield new Fate(message, result, null, true);
            }
            case RETRYABLE_FAILURE, PERMANENT_FAILURE -> {
              String error = describe(result);
              // The event's own policy: its event type's, its aggregate type's, or the default.
              RetryPolicy policy = config.retryPolicy(message);
              if (result.isPermanent()
                  || policy.exhausted(
                      message.attempt(), message.createdAt(), answeredAt.toInstant())) {
                failures.add(new Failure(message.id(), null, error, answeredAt));
                yield new Fate(message, result, null, true);
              }
              Duration delay = policy.backoff().delayAfter(message.attempt(), random);
              failures.add(new Failure(message.id(), answeredAt.plus(delay), error, null));
              yield new Fate(message, result, delay, true);
            }
          };
      fates.add(fate);
    }
    boolean answered = published.size() + failures.size() > 0;
    return new BatchOutcome(published, failures, unavailable, fates, answered, 0);
  }

  /** The outcome of a batch whose every claimed row was unreadable. */
  static BatchOutcome unreadable(List<Failure> unreadable) {
    return EMPTY.withUnreadable(unreadable);
  }

  /** This outcome plus rows that could not be read, recorded as dead letters. */
  BatchOutcome withUnreadable(List<Failure> rows) {
    if (rows.isEmpty()) {
      return this;
    }
    List<Failure> all = new ArrayList<>(failures);
    all.addAll(rows);
    return new BatchOutcome(
        publishedIds, all, unavailableIds, fates, answered, unreadable + rows.size());
  }

  private static String describe(PublishResult result) {
    // Plugins often put the exception's text in the reason already: then it is not repeated.
    String reason = result.reason(); // never null for a failure: PublishResult checks it
    Throwable cause = result.cause();
    String message = cause == null ? null : cause.getMessage();
    boolean told =
        cause == null
            || (reason != null
                && message != null
                && !message.isBlank()
                && reason.contains(message));
    return ErrorText.sanitize(told ? reason : reason + ": " + cause);
  }

  List<UUID> publishedIds() {
    return publishedIds;
  }

  List<Failure> failures() {
    return failures;
  }

  /** Events the broker was unavailable to; their rows are left as they were. */
  List<UUID> unavailableIds() {
    return unavailableIds;
  }

  /** Whether the broker answered any message it was sent, with any outcome but unavailable. */
  boolean answered() {
    return answered;
  }

  /** Messages whose attempt failed and that will be retried after their backoff. */
  int retried() {
    return retried;
  }

  /** Messages that became dead letters, and rows that could not be read (dead letters too). */
  int deadLettered() {
    return deadLettered;
  }

  /** Messages not attempted because an earlier one of their aggregate's run failed. */
  int notAttempted() {
    return (int) fates.stream().filter(f -> !f.attempted()).count();
  }

  /** The first broker-unavailable reason of the batch, or null. */
  @Nullable String unavailableReason() {
    return fates.stream()
        .filter(Fate::attempted)
        .map(Fate::result)
        .filter(PublishResult::isBrokerUnavailable)
        .map(BatchOutcome::describe)
        .findFirst()
        .orElse(null);
  }

  List<Fate> fates() {
    return fates;
  }

  /** Rows claimed, including unreadable ones. */
  int claimed() {
    return fates.size() + unreadable;
  }
}
