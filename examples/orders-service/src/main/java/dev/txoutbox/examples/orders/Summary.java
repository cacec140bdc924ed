package dev.txoutbox.examples.orders;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * The outcome of one run. Immutable.
 *
 * @param written orders committed, each with its event
 * @param published events the broker acknowledged (a retried event may count twice)
 * @param received distinct events of this run's orders that the consumer processed
 * @param reReads records the consumer read again from an offset it had read (the group re-joined
 *     with uncommitted offsets) and dropped
 * @param brokerDuplicates other records in the topic carrying an event already processed (sent
 *     again by the relay), dropped
 * @param lost orders written whose event never arrived: {@code written - received}
 * @param otherReceived events processed that this run did not write (left over from an earlier one)
 * @param skippedRecords records the consumer skipped because they were not outbox events
 * @param retried failed publish attempts the relay retried
 * @param pendingAtEnd events still pending in the outbox after the run
 * @param deadLetters dead letters in the outbox after the run
 * @param peakPending the most pending events seen while the broker was down (or stopping or
 *     starting), sampled once a second; zero without an outage
 * @param outageDown how long the broker was down, zero without an outage
 * @param totalsMatch whether the consumer's customer totals equal the orders table's, for this run
 * @param elapsed wall-clock time of the run, from the first order to the summary
 * @param failure why the run stopped early, or null
 */
record Summary(
    long written,
    long published,
    long received,
    long reReads,
    long brokerDuplicates,
    long lost,
    long otherReceived,
    long skippedRecords,
    long retried,
    long pendingAtEnd,
    long deadLetters,
    long peakPending,
    Duration outageDown,
    boolean totalsMatch,
    Duration elapsed,
    String failure) {

  /** Whether every order's event arrived, exactly once after deduplication, and nothing failed. */
  boolean ok() {
    return lost == 0 && totalsMatch && failure == null;
  }

  void print(PrintStream out) {
    out.println();
    out.println("Summary");
    line(out, "orders written", written, "");
    line(out, "events published", published, "acknowledged by Kafka");
    line(out, "events received", received, "distinct, processed by the consumer");
    line(out, "re-reads dropped", reReads, "records read again after the group re-joined");
    line(out, "broker duplicates", brokerDuplicates, "other records repeating an event");
    line(out, "lost", lost, "written - received; must be 0");
    if (otherReceived > 0) {
      line(out, "earlier events", otherReceived, "received, written before this run");
    }
    if (skippedRecords > 0) {
      line(out, "skipped records", skippedRecords, "not outbox events");
    }
    if (retried > 0) {
      line(out, "publish retries", retried, "failed attempts the relay retried");
    }
    line(
        out,
        "outbox pending now",
        pendingAtEnd,
        "dead letters: " + String.format("%,d", deadLetters));
    if (!outageDown.isZero()) {
      out.printf(
          Locale.ROOT,
          "  %-20s %10s   the outbox held up to %,d pending events%n",
          "broker outage",
          seconds(outageDown),
          peakPending);
    }
    out.printf(
        Locale.ROOT,
        "  %-20s %10s   customer totals built by the consumer %s the orders table%n",
        "consumer totals",
        totalsMatch ? "match" : "MISMATCH",
        totalsMatch ? "equal" : "differ from");
    out.printf(Locale.ROOT, "  %-20s %10s%n", "took", seconds(elapsed));
    out.println();
    if (failure != null) {
      out.println("FAILED: " + failure);
    } else if (ok()) {
      out.println(
          "OK: every order's event arrived; re-reads and duplicates were dropped; nothing was"
              + " lost.");
    } else {
      out.println("FAILED: " + lost + " order event(s) never arrived.");
    }
  }

  private static void line(PrintStream out, String label, long value, String note) {
    String text = String.format(Locale.ROOT, "  %-20s %,10d   %s", label, value, note);
    out.println(text.stripTrailing());
  }

  static String seconds(Duration duration) {
    return String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
  }
}
