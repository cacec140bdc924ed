package dev.txoutbox.bench;

import dev.txoutbox.spi.Publisher;

/** Where a benchmark run publishes to. */
interface Target extends AutoCloseable {

  /** A short name for the report. */
  String name();

  /** A publisher for one run; closed by the caller after the run. */
  Publisher publisher();

  /** Called after each run, e.g. to empty a queue. */
  default void afterRun() {}

  @Override
  default void close() {}
}
