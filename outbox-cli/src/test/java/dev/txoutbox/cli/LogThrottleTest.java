package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The Kafka client's repeats are bounded by the CLI's logback.xml; the relay's lines are not. */
class LogThrottleTest {

  private static final String NETWORK_CLIENT = "org.apache.kafka.clients.NetworkClient";

  /** As Kafka's LogContext logs it: the client's prefix in the pattern, the node in a parameter. */
  private static final String CANNOT_CONNECT =
      "[Producer clientId=txoutbox-relay-default] Connection to node {} ({}) could not be"
          + " established. Node may not be available.";

  @Test
  void theCliConfigurationLogsEachKafkaClientMessageOnceAndEveryRelayLine() throws Exception {
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(LogThrottleTest.class.getResource("/logback.xml"));
    ListAppender<ILoggingEvent> lines = capture(context);

    for (int i = 0; i < 10; i++) {
      context.getLogger(NETWORK_CLIENT).warn(CANNOT_CONNECT, -1, "/127.0.0.1:1");
      context
          .getLogger(NETWORK_CLIENT)
          .warn("[Producer clientId=x] Bootstrap broker {} disconnected", i);
      context.getLogger("dev.txoutbox.relay").warn("relay default: broker unavailable {}", i);
    }

    assertThat(lines.list)
        .filteredOn(e -> e.getLoggerName().equals(NETWORK_CLIENT))
        .extracting(ILoggingEvent::getMessage)
        .containsExactly(CANNOT_CONNECT, "[Producer clientId=x] Bootstrap broker {} disconnected");
    assertThat(lines.list)
        .filteredOn(e -> e.getLoggerName().equals("dev.txoutbox.relay"))
        .hasSize(10);
  }

  @Test
  void theCliConfigurationLogsEachPoolWarningOfAFailoverOnce() throws Exception {
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(LogThrottleTest.class.getResource("/logback.xml"));
    ListAppender<ILoggingEvent> lines = capture(context);
    String pool = "com.zaxxer.hikari.pool.PoolBase";
    String failed =
        "{} - Failed to validate connection {} ({}). Possibly consider using a shorter"
            + " maxLifetime value.";

    for (int i = 0; i < 3; i++) {
      context.getLogger(pool).warn(failed, "txoutbox-relay-default", "conn" + i, "closed");
    }

    assertThat(lines.list).filteredOn(e -> e.getLoggerName().equals(pool)).hasSize(1);
  }

  @Test
  void aMessageIsLoggedAgainOnceTheIntervalHasPassed() {
    MutableClock clock = new MutableClock();
    LoggerContext context = new LoggerContext();
    LogThrottle throttle = new LogThrottle(clock);
    throttle.addLogger("org.apache.kafka");
    throttle.setInterval("5m");
    throttle.start();
    context.addTurboFilter(throttle);
    ListAppender<ILoggingEvent> lines = capture(context);
    Logger kafka = context.getLogger(NETWORK_CLIENT);

    kafka.warn(CANNOT_CONNECT, -1, "a");
    clock.advance(Duration.ofMinutes(4));
    kafka.warn(CANNOT_CONNECT, -1, "b");
    clock.advance(Duration.ofMinutes(1));
    kafka.warn(CANNOT_CONNECT, -1, "c");
    // Below the logger's level: left to the level, and not counted as shown.
    kafka.setLevel(ch.qos.logback.classic.Level.WARN);
    kafka.info("[Producer clientId=x] Node {} disconnected.", 1);
    kafka.setLevel(ch.qos.logback.classic.Level.INFO);
    kafka.info("[Producer clientId=x] Node {} disconnected.", 2);

    assertThat(lines.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .containsExactly(
            "[Producer clientId=txoutbox-relay-default] Connection to node -1 (a) could not be"
                + " established. Node may not be available.",
            "[Producer clientId=txoutbox-relay-default] Connection to node -1 (c) could not be"
                + " established. Node may not be available.",
            "[Producer clientId=x] Node 2 disconnected.");
  }

  private static ListAppender<ILoggingEvent> capture(LoggerContext context) {
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.setContext(context);
    lines.start();
    context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(lines);
    return lines;
  }

  /** A clock the test moves. */
  private static final class MutableClock extends Clock {
    private Instant now = Instant.parse("2026-12-06T12:00:00Z");

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
