package dev.txoutbox;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * The relay's log lines ({@code dev.txoutbox.relay}) during each test, for a test class that
 * registers it with {@code @RegisterExtension}. It stops listening after the class's own
 * {@code @AfterEach} methods, so the lines of a relay closed there are kept too.
 */
public final class RelayLog implements BeforeEachCallback, AfterEachCallback {

  private final Logger logger = (Logger) LoggerFactory.getLogger("dev.txoutbox.relay");
  private ListAppender<ILoggingEvent> appender = new ListAppender<>();

  @Override
  public void beforeEach(ExtensionContext context) {
    appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    logger.detachAppender(appender);
  }

  /** The lines logged so far in this test, oldest first. */
  public List<ILoggingEvent> events() {
    return appender.list;
  }
}
