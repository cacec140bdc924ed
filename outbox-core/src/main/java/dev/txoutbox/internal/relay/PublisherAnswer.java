package dev.txoutbox.internal.relay;

import dev.txoutbox.spi.PublishResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A publisher's results for a batch, held to the {@code Publisher} contract: exactly one result per
 * message, in order. A list of another size, or none, says nothing reliable about any message, so
 * every message of the batch gets a retryable failure; a null entry is a retryable failure of its
 * message alone. Never a lost result, never an event completed on a guess.
 *
 * @param results one non-null result per message of the batch
 * @param problem why the whole list was replaced, for the log, or null when it was used
 */
record PublisherAnswer(List<PublishResult> results, @Nullable String problem) {

  /** {@code results} as the relay may use them for a batch of {@code batchSize} messages. */
  static PublisherAnswer of(
      String publisher, int batchSize, @Nullable List<PublishResult> results) {
    if (results == null || results.size() != batchSize) {
      String problem =
          "publisher "
              + publisher
              + " returned "
              + (results == null ? "null" : results.size() + " results")
              + " for "
              + batchSize
              + " messages";
      return new PublisherAnswer(
          Collections.nCopies(batchSize, PublishResult.retryable(problem)), problem);
    }
    // Not results.contains(null): immutable lists such as List.of(...) throw on it. A loop, not a
    // stream: this runs once per batch on the relay's path.
    for (PublishResult r : results) {
      if (r == null) {
        List<PublishResult> fixed = new ArrayList<>(results);
        fixed.replaceAll(f -> f == null ? PublishResult.retryable("publisher returned null") : f);
        return new PublisherAnswer(fixed, null);
      }
    }
    return new PublisherAnswer(results, null);
  }

  /**
   * Every message of a batch of {@code batchSize} failed, retryably, for {@code result}'s reason.
   */
  static List<PublishResult> all(int batchSize, PublishResult result) {
    return Collections.nCopies(batchSize, result);
  }
}
