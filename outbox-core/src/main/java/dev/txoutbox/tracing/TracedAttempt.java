package dev.txoutbox.tracing;

import dev.txoutbox.PublishTracer;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.RunOrder;
import dev.txoutbox.spi.SecretMasking;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The send spans of one publish attempt, one per message, ended with the publisher's results (see
 * {@link OpenTelemetryPublishTracer} for what each outcome records). Ends them once; thread-safe.
 */
final class TracedAttempt implements PublishTracer.Attempt {

  /** The {@code error.type} of each failed outcome: a fixed, low-cardinality list. */
  static final String RETRYABLE = "retryable";

  static final String PERMANENT = "permanent";
  static final String BROKER_UNAVAILABLE = "broker_unavailable";
  static final String NOT_SENT = "not_sent";

  private final List<OutboxMessage> messages;
  private final Span[] spans;
  private final AtomicBoolean ended = new AtomicBoolean();

  TracedAttempt(List<OutboxMessage> messages, Span[] spans) {
    this.messages = messages;
    this.spans = spans;
  }

  @Override
  public List<OutboxMessage> messages() {
    return messages;
  }

  @Override
  public void end(List<PublishResult> results) {
    Objects.requireNonNull(results, "results");
    if (results.size() != spans.length) {
      failed(
          new IllegalStateException(
              "the publisher returned "
                  + results.size()
                  + " results for a batch of "
                  + spans.length));
      return;
    }
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    for (int i = 0; i < spans.length; i++) {
      Span span = spans[i];
      PublishResult result = results.get(i);
      if (result == null) {
        fail(span, "_OTHER", "the publisher returned no result for this message", null);
      } else {
        switch (result.status()) {
          case PUBLISHED -> span.setStatus(StatusCode.OK);
          case RETRYABLE_FAILURE -> fail(span, errorType(result, RETRYABLE), result);
          case PERMANENT_FAILURE -> fail(span, PERMANENT, result);
          case BROKER_UNAVAILABLE -> fail(span, errorType(result, BROKER_UNAVAILABLE), result);
        }
      }
      span.end();
    }
  }

  @Override
  public void failed(Throwable error) {
    Objects.requireNonNull(error, "error");
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    for (Span span : spans) {
      fail(span, error.getClass().getName(), error.toString(), error);
      span.end();
    }
  }

  private static String errorType(PublishResult result, String byStatus) {
    return RunOrder.NOT_SENT.equals(result.reason()) ? NOT_SENT : byStatus;
  }

  private static void fail(Span span, String errorType, PublishResult result) {
    fail(span, errorType, String.valueOf(result.reason()), result.cause());
  }

  private static void fail(Span span, String errorType, String reason, @Nullable Throwable cause) {
    if (!span.isRecording()) {
      return;
    }
    span.setAttribute(SpanAttributes.ERROR_TYPE, errorType);
    span.setStatus(StatusCode.ERROR, SecretMasking.maskText(reason));
    if (cause != null) {
      // Not Span.recordException: its message and stack trace would go out unmasked.
      span.addEvent(
          "exception",
          Attributes.of(
              SpanAttributes.EXCEPTION_TYPE,
              cause.getClass().getName(),
              SpanAttributes.EXCEPTION_MESSAGE,
              String.valueOf(SecretMasking.maskText(cause.getMessage()))));
    }
  }
}
