package dev.txoutbox.itcompat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The messages one Logback logger writes, DEBUG included, while open; {@link #close()} restores the
 * logger's level and detaches. Thread-safe for readers while loggers write.
 */
final class LogCapture implements AutoCloseable {

  private final Logger logger;
  private final Level level;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private LogCapture(Logger logger) {
    this.logger = logger;
    this.level = logger.getLevel();
  }

  /** Starts capturing {@code name}'s messages at DEBUG and above. */
  static LogCapture of(String name) {
    LogCapture capture = new LogCapture((Logger) LoggerFactory.getLogger(name));
    capture.appender.start();
    capture.logger.addAppender(capture.appender);
    capture.logger.setLevel(Level.DEBUG);
    return capture;
  }

  /** The formatted messages so far, oldest first. */
  String messages() {
    List<ILoggingEvent> events;
    synchronized (appender) {
      events = List.copyOf(appender.list);
    }
    StringBuilder all = new StringBuilder();
    events.forEach(e -> all.append(e.getFormattedMessage()).append('\n'));
    return all.toString();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    logger.setLevel(level);
    appender.stop();
  }
}
