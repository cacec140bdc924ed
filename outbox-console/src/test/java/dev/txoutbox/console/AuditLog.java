package dev.txoutbox.console;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The lines of the console's audit log while a test runs. */
final class AuditLog implements AutoCloseable {

  private final Logger logger = (Logger) LoggerFactory.getLogger("dev.txoutbox.console.audit");
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  AuditLog() {
    appender.start();
    logger.addAppender(appender);
  }

  List<String> lines() {
    return appender.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
  }
}
