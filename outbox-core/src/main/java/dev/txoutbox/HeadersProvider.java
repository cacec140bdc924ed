package dev.txoutbox;

import java.util.Map;

/**
 * Adds headers to every event the writer records, such as the current trace context. Headers an
 * event sets itself win over provided ones with the same name.
 *
 * <p>Implementations must be thread-safe and fast: the writer calls this once per event, on the
 * caller's thread, inside the caller's transaction.
 */
@FunctionalInterface
public interface HeadersProvider {

  /** The headers to add now; never null, may be empty. */
  Map<String, String> headers();

  /** A provider that adds nothing. */
  static HeadersProvider none() {
    return Map::of;
  }
}
