package dev.txoutbox.sqs;

import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/** Errors as the SDK reports SQS's answers, for tests of their classification. */
final class SqsErrors {

  private SqsErrors() {}

  /** An error answer with {@code code} and HTTP {@code status}. */
  static SqsException serviceError(String code, int status) {
    return (SqsException)
        SqsException.builder()
            .awsErrorDetails(
                AwsErrorDetails.builder().errorCode(code).errorMessage(code + " says no").build())
            .statusCode(status)
            .build();
  }

  /** SQS's answer for a queue that does not exist. */
  static QueueDoesNotExistException queueDoesNotExist() {
    return (QueueDoesNotExistException)
        QueueDoesNotExistException.builder()
            .awsErrorDetails(
                AwsErrorDetails.builder()
                    .errorCode("AWS.SimpleQueueService.NonExistentQueue")
                    .build())
            .statusCode(400)
            .build();
  }
}
