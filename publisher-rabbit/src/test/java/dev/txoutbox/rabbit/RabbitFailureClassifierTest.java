package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.ShutdownSignalException;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import java.io.IOException;
import java.net.SocketException;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which RabbitMQ failures mean the broker is unavailable and which are the message's own. */
class RabbitFailureClassifierTest {

  private static final String ENDPOINT = "amqp://u@h:5672/%2F";

  private static ShutdownSignalException connectionSignal() {
    return new ShutdownSignalException(true, false, null, "connection");
  }

  private static ShutdownSignalException channelSignal() {
    return new ShutdownSignalException(false, false, null, "channel");
  }

  static Stream<Arguments> sendFailures() {
    return Stream.of(
        Arguments.of(new SocketException("Broken pipe"), Status.BROKER_UNAVAILABLE),
        Arguments.of(new AlreadyClosedException(connectionSignal()), Status.BROKER_UNAVAILABLE),
        Arguments.of(new IOException(connectionSignal()), Status.BROKER_UNAVAILABLE),
        Arguments.of(new AlreadyClosedException(channelSignal()), Status.RETRYABLE_FAILURE),
        Arguments.of(new IOException(channelSignal()), Status.RETRYABLE_FAILURE),
        Arguments.of(new IllegalArgumentException("bad header"), Status.RETRYABLE_FAILURE));
  }

  @ParameterizedTest
  @MethodSource("sendFailures")
  void sendingThatBreaksOffIsUnavailableOnlyWhenTheConnectionIsGone(
      Exception error, Status expected) {
    assertThat(RabbitFailureClassifier.sendFailed(error).status()).isEqualTo(expected);
  }

  @Test
  void aChannelClosedWithItsConnectionIsUnavailableAndAloneIsRetryable() {
    assertThat(RabbitFailureClassifier.channelClosed(connectionSignal()).status())
        .isEqualTo(Status.BROKER_UNAVAILABLE);
    assertThat(RabbitFailureClassifier.channelClosed(channelSignal()).status())
        .isEqualTo(Status.RETRYABLE_FAILURE);
  }

  @Test
  void connectingFailureAndBlockedConnectionAreTheBrokerBeingUnavailable() {
    PublishResult refused =
        RabbitFailureClassifier.unreachable(ENDPOINT, new IOException("refused"));
    PublishResult blocked = RabbitFailureClassifier.blocked(ENDPOINT, "low on disk");

    assertThat(refused.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
    assertThat(refused.reason()).contains("cannot reach RabbitMQ at " + ENDPOINT, "refused");
    assertThat(blocked.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
    assertThat(blocked.reason()).contains("blocks publishing", "low on disk");
  }

  @Test
  void aMissingConfirmIsRetryableUnlessTheConnectionIsBlockedOrSilent() {
    Duration timeout = Duration.ofSeconds(1);

    assertThat(RabbitFailureClassifier.confirmTimedOut(timeout, ENDPOINT, null, true).status())
        .isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(
            RabbitFailureClassifier.confirmTimedOut(timeout, ENDPOINT, "low on memory", true)
                .status())
        .isEqualTo(Status.BROKER_UNAVAILABLE);
    assertThat(RabbitFailureClassifier.confirmTimedOut(timeout, ENDPOINT, null, false))
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
              assertThat(r.reason()).contains("answered no message of the batch");
            });
  }
}
