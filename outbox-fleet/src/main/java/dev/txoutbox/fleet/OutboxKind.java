package dev.txoutbox.fleet;

import java.util.Locale;

/** How a fleet node reads an outbox's events. */
public enum OutboxKind {
  /** The polling relay ({@code OutboxRelay}): any number of readers may share the table. */
  POLLING,
  /**
   * The WAL relay ({@code WalRelay}) with a polling sweeper beside it: exactly one reader, whose
   * replication slot is the lock.
   */
  WAL;

  /** The name stored in the registry: {@code polling} or {@code wal}. */
  public String dbName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The kind stored as {@code text}.
   *
   * @throws IllegalArgumentException if {@code text} is neither {@code polling} nor {@code wal}
   */
  public static OutboxKind fromDbName(String text) {
    return switch (text) {
      case "polling" -> POLLING;
      case "wal" -> WAL;
      default ->
          throw new IllegalArgumentException("kind must be polling or wal but was '" + text + "'");
    };
  }
}
