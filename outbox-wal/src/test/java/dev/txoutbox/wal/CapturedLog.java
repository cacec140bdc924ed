package dev.txoutbox.wal;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The WAL relay's log events ({@code dev.txoutbox.wal}) from creation until {@link #close()}. */
final class CapturedLog implements AutoCloseable {

  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger("dev.txoutbox.wal");

  CapturedLog() {
    appender.start();
    logger.addAppender(appender);
  }

  /** The events so far, a copy. */
  List<ILoggingEvent> events() {
    synchronized (appender) { // AppenderBase.doAppend holds the appender's lock
      return List.copyOf(appender.list);
    }
  }

  /** The formatted messages so far. */
  List<String> lines() {
    return events().stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
  }
}
