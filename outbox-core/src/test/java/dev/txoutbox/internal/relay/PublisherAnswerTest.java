package dev.txoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.PublishResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The publisher's result list held to one result per message; no database. */
class PublisherAnswerTest {

  @Test
  void aListOfTheRightSizeIsUsedAsItIs() {
    List<PublishResult> results = List.of(PublishResult.published(), PublishResult.permanent("x"));

    PublisherAnswer answer = PublisherAnswer.of("p", 2, results);

    assertThat(answer.results()).isSameAs(results);
    assertThat(answer.problem()).isNull();
  }

  @Test
  void tooFewTooManyOrNoResultsFailTheWholeBatchRetryably() {
    for (List<PublishResult> wrong :
        Arrays.asList(
            List.of(PublishResult.published()),
            List.of(
                PublishResult.published(), PublishResult.published(), PublishResult.published()),
            null)) {
      PublisherAnswer answer = PublisherAnswer.of("kafka", 2, wrong);

      String expected =
          "publisher kafka returned "
              + (wrong == null ? "null" : wrong.size() + " results")
              + " for 2 messages";
      assertThat(answer.problem()).isEqualTo(expected);
      assertThat(answer.results())
          .hasSize(2)
          .allSatisfy(
              r -> {
                assertThat(r.status()).isEqualTo(PublishResult.Status.RETRYABLE_FAILURE);
                assertThat(r.reason()).isEqualTo(expected);
              });
    }
  }

  @Test
  void aNullEntryFailsItsMessageAloneRetryably() {
    List<PublishResult> results = new ArrayList<>();
    results.add(PublishResult.published());
    results.add(null);

    PublisherAnswer answer = PublisherAnswer.of("p", 2, results);

    assertThat(answer.problem()).isNull();
    assertThat(answer.results().get(0).isPublished()).isTrue();
    assertThat(answer.results().get(1).status()).isEqualTo(PublishResult.Status.RETRYABLE_FAILURE);
    assertThat(answer.results().get(1).reason()).isEqualTo("publisher returned null");
    assertThat(results).as("the publisher's list is left alone").containsNull();
  }
}
