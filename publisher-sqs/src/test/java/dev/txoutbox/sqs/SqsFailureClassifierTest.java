package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.PublishResult.Status;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.KmsThrottledException;

/** Which SQS failures mean the broker is unavailable, which are retryable, which permanent. */
class SqsFailureClassifierTest {

  private static SdkClientException network(IOException cause) {
    return SdkClientException.builder()
        .message("Unable to execute HTTP request: " + cause.getMessage())
        .cause(cause)
        .build();
  }

  static Stream<Arguments> requestFailures() {
    return Stream.of(
        // network errors: SQS cannot be reached
        Arguments.of(
            network(new ConnectException("Connection refused")), Status.BROKER_UNAVAILABLE),
        Arguments.of(
            network(new IOException("Connection reset by peer")), Status.BROKER_UNAVAILABLE),
        Arguments.of(network(new UnknownHostException("sqs.example")), Status.BROKER_UNAVAILABLE),
        Arguments.of(
            network(new SocketTimeoutException("connect timed out")), Status.BROKER_UNAVAILABLE),
        Arguments.of(
            new CompletionException(network(new ConnectException("refused"))),
            Status.BROKER_UNAVAILABLE),
        // no answer in time
        Arguments.of(ApiCallTimeoutException.create(1_000), Status.BROKER_UNAVAILABLE),
        Arguments.of(ApiCallAttemptTimeoutException.create(1_000), Status.BROKER_UNAVAILABLE),
        // throttling
        Arguments.of(SqsErrors.serviceError("RequestThrottled", 403), Status.BROKER_UNAVAILABLE),
        Arguments.of(SqsErrors.serviceError("ThrottlingException", 400), Status.BROKER_UNAVAILABLE),
        Arguments.of(SqsErrors.serviceError("SlowDown", 503), Status.BROKER_UNAVAILABLE),
        Arguments.of(SqsErrors.serviceError("AnyCode", 429), Status.BROKER_UNAVAILABLE),
        Arguments.of(
            KmsThrottledException.builder()
                .awsErrorDetails(AwsErrorDetails.builder().errorCode("KmsThrottled").build())
                .statusCode(400)
                .build(),
            Status.BROKER_UNAVAILABLE),
        Arguments.of(SqsErrors.serviceError("KmsThrottled", 400), Status.BROKER_UNAVAILABLE),
        // server errors
        Arguments.of(SqsErrors.serviceError("InternalFailure", 500), Status.BROKER_UNAVAILABLE),
        Arguments.of(SqsErrors.serviceError("ServiceUnavailable", 503), Status.BROKER_UNAVAILABLE),
        Arguments.of(SqsErrors.serviceError("Whatever", 502), Status.BROKER_UNAVAILABLE),
        // what a retry cannot fix
        Arguments.of(SqsErrors.queueDoesNotExist(), Status.PERMANENT_FAILURE),
        Arguments.of(SqsErrors.serviceError("AccessDenied", 403), Status.PERMANENT_FAILURE),
        Arguments.of(SqsErrors.serviceError("KmsDisabled", 400), Status.PERMANENT_FAILURE),
        // the rest, as before: retryable
        Arguments.of(
            SqsErrors.serviceError("InvalidParameterValue", 400), Status.RETRYABLE_FAILURE),
        Arguments.of(SdkClientException.create("unable to sign"), Status.RETRYABLE_FAILURE),
        Arguments.of(new IllegalStateException("bug"), Status.RETRYABLE_FAILURE));
  }

  @ParameterizedTest
  @MethodSource("requestFailures")
  void classifiesAFailedRequest(Throwable error, Status expected) {
    assertThat(SqsFailureClassifier.ofRequest("q", error).status()).isEqualTo(expected);
  }

  static Stream<Arguments> entryFailures() {
    return Stream.of(
        Arguments.of("InvalidParameterValue", true, Status.PERMANENT_FAILURE),
        Arguments.of("InvalidMessageContents", true, Status.PERMANENT_FAILURE),
        Arguments.of("MessageTooLong", true, Status.PERMANENT_FAILURE),
        Arguments.of("InternalError", false, Status.RETRYABLE_FAILURE),
        Arguments.of("ServiceUnavailable", false, Status.RETRYABLE_FAILURE));
  }

  /** SQS answered the request: its entries fail on their own, never as an unavailable broker. */
  @ParameterizedTest
  @MethodSource("entryFailures")
  void classifiesAFailedEntry(String code, boolean senderFault, Status expected) {
    BatchResultErrorEntry entry =
        BatchResultErrorEntry.builder().id("0").code(code).senderFault(senderFault).build();

    assertThat(SqsFailureClassifier.ofEntry("q", entry).status()).isEqualTo(expected);
  }
}
