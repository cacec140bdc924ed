package dev.txoutbox;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.util.List;
import java.util.Objects;

/**
 * An attempt that traces nothing and publishes its batch as it is; also {@link
 * PublishTracer#none()}. Refers to no tracing library. Immutable and thread-safe.
 */
record Untraced(List<OutboxMessage> messages) implements PublishTracer.Attempt {

  /** The tracer of {@link PublishTracer#none()}. */
  static final PublishTracer TRACER =
      (String relayName, Publisher publisher, List<OutboxMessage> batch) -> {
        Objects.requireNonNull(relayName, "relayName");
        Objects.requireNonNull(publisher, "publisher");
        return new Untraced(Objects.requireNonNull(batch, "batch"));
      };

  @Override
  public void end(List<PublishResult> results) {
    Objects.requireNonNull(results, "results");
  }

  @Override
  public void failed(Throwable error) {
    Objects.requireNonNull(error, "error");
  }
}
