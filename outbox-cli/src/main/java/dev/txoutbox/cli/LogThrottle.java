package dev.txoutbox.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import dev.txoutbox.spi.DurationText;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Marker;

/**
 * A Logback turbo filter of the CLI's {@code logback.xml} that bounds a chatty library's repeats:
 * of the loggers named (and those below them), each message (its pattern, such as Kafka's
 * "Connection to node {} could not be established") is logged the first time, then at most once per
 * {@link #setInterval interval} (default {@value #DEFAULT_INTERVAL}). Lines below the logger's
 * level are left to the level. {@code --verbose} removes it. Thread-safe.
 *
 * <pre>{@code
 * <turboFilter class="dev.txoutbox.cli.LogThrottle">
 *   <logger>org.apache.kafka</logger>
 *   <interval>5m</interval>
 * </turboFilter>
 * }</pre>
 */
public final class LogThrottle extends TurboFilter {

  /** How long a message stays quiet after it was logged, unless configured otherwise. */
  public static final String DEFAULT_INTERVAL = "5m";

  /** The most messages remembered; the least recently logged is forgotten first. */
  static final int MAX_MESSAGES = 1000;

  private final Clock clock;
  private final List<String> loggers = new CopyOnWriteArrayList<>();
  private Duration interval = DurationText.parse(DEFAULT_INTERVAL);

  private final Map<String, Instant> lastLogged =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
          return size() > MAX_MESSAGES;
        }
      };

  /** A throttle on the system clock, as {@code logback.xml} makes it. */
  public LogThrottle() {
    this(Clock.systemUTC());
  }

  LogThrottle(Clock clock) {
    this.clock = clock;
  }

  /** Throttles logger {@code name} and the loggers below it ({@code name.*}); repeatable. */
  public void addLogger(String name) {
    loggers.add(name.trim());
  }

  /**
   * How long a message stays quiet after it was logged, as the CLI's flags write durations ({@code
   * 30s}, {@code 5m}). Defaults to {@value #DEFAULT_INTERVAL}.
   *
   * @throws IllegalArgumentException if {@code interval} is not a duration
   */
  public void setInterval(String interval) {
    this.interval = DurationText.parse(interval.trim());
  }

  @Override
  public FilterReply decide(
      Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (!isStarted() || format == null || level == null || !throttled(logger.getName())) {
      return FilterReply.NEUTRAL;
    }
    if (!level.isGreaterOrEqual(logger.getEffectiveLevel())) {
      return FilterReply.NEUTRAL; // dropped by its level anyway: not a line shown
    }
    String key = logger.getName() + '\n' + format;
    Instant now = clock.instant();
    synchronized (lastLogged) {
      Instant last = lastLogged.get(key);
      if (last != null && now.isBefore(last.plus(interval))) {
        return FilterReply.DENY;
      }
      lastLogged.put(key, now);
    }
    return FilterReply.NEUTRAL;
  }

  private boolean throttled(String name) {
    for (String prefix : loggers) {
      if (name.equals(prefix) || name.startsWith(prefix + ".")) {
        return true;
      }
    }
    return false;
  }
}
