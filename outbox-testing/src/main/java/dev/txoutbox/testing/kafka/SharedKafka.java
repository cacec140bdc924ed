package dev.txoutbox.testing.kafka;

/**
 * One {@link EmbeddedKafka} shared by every test class of a test JVM that does not stop it, so the
 * broker starts once. It is started on first use and closed when the JVM exits. Tests that stop or
 * restart a broker start their own instead. Thread-safe.
 */
public final class SharedKafka {

  private static EmbeddedKafka broker;

  private SharedKafka() {}

  /** The shared broker, started on first use. */
  public static synchronized EmbeddedKafka broker() {
    if (broker == null) {
      EmbeddedKafka started = EmbeddedKafka.builder().start();
      Runtime.getRuntime()
          .addShutdownHook(new Thread(started::close, "shared-embedded-kafka-close"));
      broker = started;
    }
    return broker;
  }
}
