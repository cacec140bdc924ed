package dev.txoutbox.wal;

import dev.txoutbox.Backoff;
import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL relay's per-batch step: claims the events of a batch that are still pending (waiting for
 * rows not visible yet, for rows another relay holds, and in the per-aggregate orderings holding
 * back aggregates with earlier pending events), hands them to the relay kernel ({@link
 * RelayKernel}) to publish, record and report, and holds the slot while the broker is unavailable
 * to a whole batch, telling the kernel's one broker outage tracker of each publish. Batches of one
 * stream run on the stream's batch threads; in the per-aggregate orderings one at a time.
 * Thread-safe as the relay uses it.
 */
final class WalBatchStep {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.wal");

  /** The first and the longest pause between two looks for rows not visible yet. */
  private static final Duration FIRST_LOOK = Duration.ofMillis(1);

  private static final Duration LONGEST_LOOK = Duration.ofMillis(100);

  /** The pauses between two looks: from {@link #FIRST_LOOK} doubling to {@link #LONGEST_LOOK}. */
  private static final Backoff LOOKS = new Backoff(FIRST_LOOK, LONGEST_LOOK, 2.0, 0.0);

  private final DSLContext dsl;
  private final WalStatements statements;
  private final RelayConfig config;
  private final Clock clock;
  private final RelayKernel kernel;
  private final Duration visibilityWait;
  private final Duration lockTimeout;
  private final BooleanSupplier running;
  private final AtomicLong skippedCount;
  private final AtomicLong visibilityWaits;

  /**
   * In the per-aggregate orderings, the aggregates whose events the relay leaves to the polling
   * relay because a transaction the stream delivered is still not visible on the last look, by that
   * transaction's {@code xid}: their later events must not overtake the invisible ones, which no
   * statement can see. Dropped once the transaction no longer runs (visible, so the check of {@link
   * WalStore#blocked} sees its rows). The batch thread's only (one at a time: a stream's thread has
   * ended before the next stream's starts); an entry is added at most once per visibility wait.
   */
  private final Map<Integer, Set<WalStore.Aggregate>> heldBack = new HashMap<>();

  WalBatchStep(
      DSLContext dsl,
      WalStatements statements,
      RelayConfig config,
      Clock clock,
      RelayKernel kernel,
      Duration visibilityWait,
      Duration lockTimeout,
      BooleanSupplier running,
      AtomicLong skippedCount,
      AtomicLong visibilityWaits) {
    this.dsl = dsl;
    this.statements = statements;
    this.config = config;
    this.clock = clock;
    this.kernel = kernel;
    this.visibilityWait = visibilityWait;
    this.lockTimeout = lockTimeout;
    this.running = running;
    this.skippedCount = skippedCount;
    this.visibilityWaits = visibilityWaits;
  }

  /**
   * Processes one batch; while the broker is unavailable to every event of it, rolls it back, waits
   * the broker probe backoff's next delay with the slot held and publishes it again. Each publish
   * the broker is unavailable to is news for the kernel's outage tracker, as each it answers is
   * ({@link #process}): one outage for every batch held meanwhile, heard once as it begins and once
   * as it ends. While rows of the batch are not visible yet, looks again after a pause, up to the
   * visibility wait.
   */
  void processHolding(List<OutboxMessage> events, Map<UUID, Integer> xids)
      throws InterruptedException {
    int probes = 0;
    int lockWaits = 0;
    long visibleBy = System.nanoTime() + visibilityWait.toNanos();
    int looks = 0;
    while (true) {
      long began = kernel.now();
      String unavailable;
      try {
        unavailable = process(events, xids, System.nanoTime() - visibleBy >= 0);
      } catch (NotVisibleYet e) {
        visibilityWaits.incrementAndGet();
        hold(LOOKS.delayAfter(++looks, ThreadLocalRandom.current()));
        continue;
      } catch (org.jooq.exception.DataAccessException e) {
        if ("40P01".equals(e.sqlState())) {
          // The ordered claim of a polling relay waited for rows of this batch while this relay
          // waited for rows of its run; the server failed this side, which tries again.
          log.info(
              "WAL relay {}: batch rolled back to break a deadlock with another relay;"
                  + " processing it again",
              config.name());
        } else if ("55P03".equals(e.sqlState())) {
          // Another relay held rows of the batch past the lock timeout (publishing them): claim
          // again (the reader tells the server the relay is alive meanwhile). Said once per
          // batch where an operator sees it, since the slot does not move meanwhile.
          String text =
              "WAL relay {}: rows of the batch held by another relay for {} ({} waits so far);"
                  + " the slot waits with them, claiming again";
          if (lockWaits++ == 0) {
            log.info(text, config.name(), DurationText.of(lockTimeout), lockWaits);
          } else {
            log.debug(text, config.name(), DurationText.of(lockTimeout), lockWaits);
          }
        } else {
          throw e;
        }
        hold(FIRST_LOOK); // throws once the relay is closed
        continue;
      }
      if (unavailable == null) {
        return;
      }
      kernel.brokerUnavailable(unavailable, began);
      hold(config.brokerProbeBackoff().delayAfter(++probes, ThreadLocalRandom.current()));
    }
  }

  /**
   * Waits {@code delay} on the batch thread; the reader, waiting for the batch, tells the server
   * every half status interval that the relay is alive, so that {@code wal_sender_timeout} does not
   * end the stream.
   *
   * @throws InterruptedException if the relay is closed meanwhile
   */
  private void hold(Duration delay) throws InterruptedException {
    long end = System.nanoTime() + delay.toNanos();
    long left;
    while (running.getAsBoolean() && (left = end - System.nanoTime()) > 0) {
      LockSupport.parkNanos(this, left); // close() unparks
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while holding the slot");
      }
    }
    if (!running.getAsBoolean()) {
      throw new InterruptedException("closed while holding the slot");
    }
  }

  /**
   * One batch: claim, publish, record, commit; then tell the listener, and the outage tracker that
   * the broker answered.
   *
   * <p>The stream can deliver a commit before other sessions see it: the server decodes a commit
   * once it is flushed, while the committing session makes it visible only afterwards (at once,
   * usually; after the acknowledgement when it waits for a synchronous standby). So an event that
   * is neither claimed nor visible at all is either deleted (published by the polling relay in
   * {@code DELETE} mode, purged) or not visible yet: unless {@code lastLook}, the batch is rolled
   * back to be looked at again shortly ({@link NotVisibleYet}); on the last look such events are
   * left to the polling relay, which finds any that appear later.
   *
   * @return null, or the reason when the broker was unavailable to every event published: then the
   *     transaction was rolled back and nothing recorded
   * @throws NotVisibleYet if some events' rows are not visible and this is not the last look
   */
  @Nullable String process(List<OutboxMessage> events, Map<UUID, Integer> xids, boolean lastLook)
      throws InterruptedException {
    long started = System.nanoTime();
    long began = kernel.now();
    UUID[] ids = events.stream().map(OutboxMessage::id).toArray(UUID[]::new);
    int[] counts = new int[2]; // claimed, published
    List<RelayKernel.Answer> answered = new ArrayList<>(1);
    try {
      dsl.transaction(
          cfg -> {
            DSLContext tx = cfg.dsl();
            statements.settings(tx);
            OffsetDateTime now = OffsetDateTime.now(clock);
            Set<UUID> pending = new HashSet<>();
            List<UUID> missing = claim(tx, ids, now, pending);
            if (!missing.isEmpty()) {
              if (!lastLook) {
                throw new NotVisibleYet();
              }
              log.info(
                  "WAL relay {}: {} event(s) not visible after {}, left to the polling relay"
                      + " (deleted by another relay, or a commit still waiting, for a"
                      + " synchronous standby for one){}: {}",
                  config.name(),
                  missing.size(),
                  DurationText.of(visibilityWait),
                  config.ordering() == Ordering.NONE
                      ? ""
                      : "; so are their aggregates' later events while their commit runs",
                  missing.size() <= 10 ? missing : missing.subList(0, 10) + " …");
            }
            List<OutboxMessage> send = new ArrayList<>(pending.size());
            for (OutboxMessage m : events) {
              if (pending.contains(m.id())) {
                send.add(m);
              }
            }
            if (config.ordering() != Ordering.NONE) {
              // Those held back by an earlier batch's invisible events first, in an earlier
              // snapshot than the check's: a transaction that stopped running by then is visible
              // to the check, which holds its aggregate back while its events are pending.
              Set<WalStore.Aggregate> blocked = new HashSet<>(stillHeldBack(tx));
              blocked.addAll(WalStore.blocked(tx, send, config.ordering()));
              // An event left to the polling relay holds back the rest of its aggregate too, in
              // this batch and in later ones while its commit is invisible: the check cannot see
              // its row, so it would not.
              if (!missing.isEmpty()) {
                Set<UUID> gone = new HashSet<>(missing);
                for (OutboxMessage m : events) {
                  if (gone.contains(m.id())) {
                    blocked.add(WalStore.Aggregate.of(m));
                    Integer xid = xids.get(m.id());
                    if (xid != null) {
                      heldBack
                          .computeIfAbsent(xid, x -> new HashSet<>())
                          .add(WalStore.Aggregate.of(m));
                    }
                  }
                }
              }
              if (!blocked.isEmpty()) {
                List<UUID> left = new ArrayList<>();
                send.removeIf(m -> blocked.contains(WalStore.Aggregate.of(m)) && left.add(m.id()));
                if (config.completionMode() == CompletionMode.MARK_PROCESSED) {
                  WalStore.unmark(tx, left);
                }
              }
            }
            counts[0] = send.size();
            if (send.isEmpty()) {
              return;
            }
            RelayKernel.Answer answer;
            try {
              answer = kernel.publish(send); // an Error of the publisher's rolls the batch back
            } catch (InterruptedException e) {
              throw new RuntimeInterruption(e);
            }
            if (!answer.answered()) {
              // Unavailable to every event attempted: hold the slot (processHolding), no record.
              throw new Unavailable(Objects.toString(answer.unavailableReason()));
            }
            kernel.record(tx, answer, rows(now));
            counts[1] = answer.published();
            answered.add(answer);
          });
    } catch (Unavailable e) {
      return e.getMessage();
    } catch (NotVisibleYet e) {
      throw e;
    } catch (org.jooq.exception.DataAccessException | RuntimeInterruption e) {
      if (e instanceof RuntimeInterruption) {
        throw new InterruptedException("interrupted while publishing");
      }
      throw e;
    }
    skippedCount.addAndGet(events.size() - counts[0]);
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    log.debug(
        "WAL relay {}: batch of {} read, {} claimed, {} published in {}",
        config.name(),
        events.size(),
        counts[0],
        counts[1],
        DurationText.of(took));
    if (!answered.isEmpty()) {
      kernel.report(answered.get(0), took);
      kernel.brokerAnswered(began);
    }
    return null;
  }

  /**
   * The aggregates {@link #heldBack} still holds back: those of transactions still running in this
   * statement's snapshot. Forgets the others. No statement while nothing is held back.
   */
  private Set<WalStore.Aggregate> stillHeldBack(DSLContext tx) {
    if (heldBack.isEmpty()) {
      return Set.of();
    }
    Set<Integer> running = WalStore.runningXids(tx);
    heldBack.keySet().retainAll(running);
    Set<WalStore.Aggregate> held = new HashSet<>();
    heldBack.values().forEach(held::addAll);
    return held;
  }

  /**
   * Claims those of {@code ids} still pending into {@code pending} and returns the ids whose rows
   * the claim could not see at all: not visible yet, or deleted.
   *
   * <p>In {@link CompletionMode#MARK_PROCESSED} a row another relay finished stays, so an id the
   * claim missed is looked up again in a later snapshot, and claimed if it became visible since. In
   * {@link CompletionMode#DELETE} the polling relay deletes what it publishes, so whether a row was
   * there must come from the claim's own snapshot ({@link WalStore#claimSeen}): a row deleted while
   * the claim waited for it is finished, not missing.
   */
  private List<UUID> claim(DSLContext tx, UUID[] ids, OffsetDateTime now, Set<UUID> pending) {
    Set<UUID> seen;
    if (config.completionMode() == CompletionMode.DELETE) {
      Map<UUID, Boolean> claimed = statements.claimSeen(tx, ids);
      claimed.forEach(
          (id, locked) -> {
            if (locked) {
              pending.add(id);
            }
          });
      seen = claimed.keySet();
    } else {
      pending.addAll(statements.claim(tx, ids, now));
      if (pending.size() == ids.length) {
        return List.of();
      }
      UUID[] unclaimed =
          Arrays.stream(ids).filter(id -> !pending.contains(id)).toArray(UUID[]::new);
      // Each statement has a snapshot of its own: a row can become visible after the claim. So
      // claim again what is visible now, in a later snapshot than the look: a row seen but not
      // claimed then is done or postponed by another relay; one not seen is looked at again.
      seen = statements.visible(tx, unclaimed);
      if (!seen.isEmpty()) {
        pending.addAll(statements.claim(tx, seen.toArray(UUID[]::new), now));
      }
      seen = new HashSet<>(seen);
      seen.addAll(pending);
    }
    List<UUID> missing = new ArrayList<>();
    for (UUID id : ids) {
      if (!seen.contains(id)) {
        missing.add(id);
      }
    }
    return missing;
  }

  /** Thrown through jOOQ's transaction to roll it back when the publisher was interrupted. */
  private static final class RuntimeInterruption extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RuntimeInterruption(InterruptedException cause) {
      super(cause);
    }
  }

  /** Thrown through jOOQ's transaction to roll it back when some rows are not visible yet. */
  private static final class NotVisibleYet extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotVisibleYet() {
      super("rows not visible yet", null, false, false);
    }
  }

  /** Thrown through jOOQ's transaction to roll it back when the broker was unavailable to all. */
  private static final class Unavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unavailable(String reason) {
      super(reason, null, false, false);
    }
  }

  /**
   * This relay's statements for the kernel: the published events stay marked by the claim (marked
   * again if the answer came late) or are deleted; the events not attempted lose the claim's mark
   * and, left to the polling relay, wait behind the event of their aggregate that failed (its
   * retry, or now behind a dead letter), even unordered: the WAL relay's policy, one statement per
   * distinct time.
   */
  private RelayKernel.Rows rows(OffsetDateTime claimed) {
    return new RelayKernel.Rows() {
      @Override
      public void complete(DSLContext tx, List<UUID> ids, OffsetDateTime answeredAt) {
        statements.complete(tx, ids, claimed, answeredAt);
      }

      @Override
      public void release(DSLContext tx, Map<OffsetDateTime, List<UUID>> behind) {
        behind.forEach((until, ids) -> WalStore.defer(tx, ids, until));
      }
    };
  }
}
