package dev.txoutbox.cli;

import ch.qos.logback.classic.pattern.KeyValuePairConverter;
import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;

/**
 * Logback converters of the CLI's log pattern ({@code logback.xml}): the message, the key-values
 * and the stack trace of every log line, from any library, are {@linkplain OutputMasking masked}
 * and their control characters {@linkplain dev.txoutbox.spi.Printable neutralised}, so a log line
 * is always one line (stack traces aside) and never holds a credential.
 */
public final class LogMasking {

  private LogMasking() {}

  /** {@code %msg}: one line, masked, durations as the flags take them. */
  public static final class Message extends MessageConverter {
    @Override
    public String convert(ILoggingEvent event) {
      return OutputMasking.line(Durations.inText(super.convert(event)));
    }
  }

  /** {@code %kvp}: such as {@code event_type="order.created"}, one line, masked. */
  public static final class KeyValues extends KeyValuePairConverter {
    @Override
    public String convert(ILoggingEvent event) {
      return OutputMasking.line(super.convert(event));
    }
  }

  /** {@code %ex}: the stack trace, its lines kept, masked. */
  public static final class Stack extends ThrowableProxyConverter {
    @Override
    protected String throwableProxyToString(IThrowableProxy proxy) {
      return OutputMasking.lines(super.throwableProxyToString(proxy));
    }
  }
}
