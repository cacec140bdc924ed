package dev.txoutbox.cli;

import java.util.Locale;

/** The brokers the {@code relay} command publishes to, one per value of {@code --publisher}. */
enum Broker {
  KAFKA,
  SQS,
  RABBIT;

  /** How {@code --publisher} reads it. */
  static final EnumFlag<Broker> FLAG = EnumFlag.of("--publisher", Broker.class);

  /** Its word on the command line, as in {@code --publisher kafka}. */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
