package dev.txoutbox.internal.relay;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.relay.BatchOutcome.Fate;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One claim-publish-complete cycle in one transaction, then the reports about it. Thread-safe: each
 * worker runs cycles concurrently on the same instance.
 */
final class RelayCycle {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  /**
   * Retries logged one by one at WARN per batch; the rest go to DEBUG behind one WARN summary, so a
   * broker outage does not flood the log with a line per event.
   */
  static final int MAX_RETRY_WARNINGS_PER_BATCH = 10;

  private final DSLContext dsl;
  private final Publisher publisher;
  private final RelayConfig config;
  private final Clock clock;
  private final RelayListener listener;

  RelayCycle(
      DSLContext dsl,
      Publisher publisher,
      RelayConfig config,
      Clock clock,
      RelayListener listener) {
    this.dsl = dsl;
    this.publisher = publisher;
    this.config = config;
    this.clock = clock;
    this.listener = listener;
  }

  /** Thrown through jOOQ's transaction to roll it back when publishing was interrupted. */
  private static final class Interrupted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Interrupted(InterruptedException cause) {
      super(cause);
    }
  }

  /**
   * Runs one cycle.
   *
   * @return the number of events claimed
   * @throws InterruptedException if interrupted while publishing; the transaction was rolled back
   */
  int run() throws InterruptedException {
    long started = System.nanoTime();
    BatchOutcome outcome;
    try {
      outcome = dsl.transactionResult(configuration -> claimPublishComplete(configuration.dsl()));
    } catch (Interrupted e) {
      Thread.currentThread().interrupt();
      throw (InterruptedException) e.getCause();
    }
    if (outcome.claimed() > 0) {
      report(outcome, Duration.ofNanos(System.nanoTime() - started));
    }
    return outcome.claimed();
  }

  private BatchOutcome claimPublishComplete(DSLContext tx) {
    OffsetDateTime now = OffsetDateTime.now(clock);
    List<OutboxMessage> batch = RelayStore.claim(tx, config.batchSize(), now, config.ordering());
    if (batch.isEmpty()) {
      return BatchOutcome.EMPTY;
    }
    List<PublishResult> results = publish(batch);
    BatchOutcome outcome =
        BatchOutcome.of(batch, results, config, now, ThreadLocalRandom.current());
    RelayStore.complete(tx, outcome.publishedIds(), config.completionMode(), now);
    RelayStore.fail(tx, outcome.failures());
    return outcome;
  }

  /** Calls the publisher; whatever goes wrong becomes retryable failures, never a lost result. */
  private List<PublishResult> publish(List<OutboxMessage> batch) {
    List<PublishResult> results;
    try {
      results = publisher.publish(Collections.unmodifiableList(batch));
    } catch (InterruptedException e) {
      throw new Interrupted(e);
    } catch (RuntimeException e) {
      log.warn(
          "publisher {} threw for a batch of {}; retrying all", publisher.name(), batch.size(), e);
      return all(batch, PublishResult.retryable("publisher threw", e));
    }
    if (results == null || results.size() != batch.size()) {
      String reason =
          "publisher "
              + publisher.name()
              + " returned "
              + (results == null ? "null" : results.size() + " results")
              + " for "
              + batch.size()
              + " messages";
      log.warn("relay {}: {}; retrying all", config.name(), reason);
      return all(batch, PublishResult.retryable(reason));
    }
    // Not results.contains(null): immutable lists such as List.of(...) throw on it.
    if (results.stream().anyMatch(Objects::isNull)) {
      List<PublishResult> fixed = new ArrayList<>(results);
      fixed.replaceAll(r -> r == null ? PublishResult.retryable("publisher returned null") : r);
      return fixed;
    }
    return results;
  }

  private static List<PublishResult> all(List<OutboxMessage> batch, PublishResult result) {
    return Collections.nCopies(batch.size(), result);
  }

  private void report(BatchOutcome outcome, Duration duration) {
    int published = 0;
    int retries = 0;
    int unavailable = 0;
    for (Fate fate : outcome.fates()) {
      OutboxMessage m = fate.message();
      if (fate.result().isPublished()) {
        published++;
        listener.published(m);
      } else if (fate.result().isBrokerUnavailable()) {
        unavailable++;
        withEvent(log.atDebug(), m)
            .log(
                "event {} ({}) not sent, broker unavailable: {}",
                m.id(),
                m.eventType(),
                fate.result().reason());
      } else if (fate.deadLettered()) {
        withEvent(log.atError(), m)
            .setCause(fate.result().cause())
            .log(
                "event {} ({}) is a dead letter after attempt {}: {}",
                m.id(),
                m.eventType(),
                m.attempt(),
                fate.result().reason());
        listener.deadLettered(m, fate.result());
      } else {
        retries++;
        withEvent(retries <= MAX_RETRY_WARNINGS_PER_BATCH ? log.atWarn() : log.atDebug(), m)
            .log(
                "event {} ({}) attempt {} failed, retrying in {}: {}",
                m.id(),
                m.eventType(),
                m.attempt(),
                fate.delay(),
                fate.result().reason());
        listener.willRetry(m, fate.result(), fate.delay());
      }
    }
    if (retries > MAX_RETRY_WARNINGS_PER_BATCH) {
      log.warn(
          "relay {}: {} more events of this batch failed and will be retried (each logged at"
              + " DEBUG)",
          config.name(),
          retries - MAX_RETRY_WARNINGS_PER_BATCH);
    }
    int failed = outcome.claimed() - published;
    log.debug(
        "relay {}: batch of {} in {} ms: {} published, {} failed",
        config.name(),
        outcome.claimed(),
        duration.toMillis(),
        published,
        failed);
    listener.batchCompleted(outcome.claimed(), published, failed, duration);
  }

  private LoggingEventBuilder withEvent(LoggingEventBuilder b, OutboxMessage m) {
    return b.addKeyValue("relay", config.name())
        .addKeyValue("event_id", m.id())
        .addKeyValue("event_type", m.eventType())
        .addKeyValue("aggregate_id", m.aggregateId())
        .addKeyValue("attempt", m.attempt());
  }
}
