package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The builder rejects every invalid setting with a message naming it. */
class SqsPublisherBuilderTest {

  private final FakeSqs sqs = new FakeSqs();

  private SqsPublisher.Builder valid() {
    return SqsPublisher.builder().client(sqs).route("order", "orders");
  }

  @Test
  void buildsWithOnlyAClientAndARoute() {
    assertThatCode(() -> valid().build().close()).doesNotThrowAnyException();
    assertThat(valid().build().name()).isEqualTo("sqs");
  }

  @Test
  void requiresAClient() {
    assertThatThrownBy(() -> SqsPublisher.builder().route("order", "orders").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("client");
  }

  @Test
  void requiresRoutesOrARouter() {
    assertThatThrownBy(() -> SqsPublisher.builder().client(sqs).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("route");
  }

  @Test
  void refusesRoutesAndARouterTogether() {
    assertThatThrownBy(() -> valid().router(m -> Optional.of("q")).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exclusive");
  }

  @Test
  void refusesNullsNamingTheParameter() {
    SqsPublisher.Builder builder = SqsPublisher.builder();
    assertThatThrownBy(() -> builder.client(null)).hasMessage("client");
    assertThatThrownBy(() -> builder.router(null)).hasMessage("router");
    assertThatThrownBy(() -> builder.sendTimeout(null)).hasMessage("sendTimeout");
    assertThatThrownBy(() -> builder.route(null, "q")).hasMessage("aggregateType");
    assertThatThrownBy(() -> builder.route("t", null)).hasMessage("queue");
    assertThatThrownBy(() -> builder.routes(null)).hasMessage("routes");
  }

  @Test
  void refusesABlankQueue() {
    assertThatThrownBy(() -> SqsPublisher.builder().route("order", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("queue of aggregate type 'order' must not be blank but was ' '");
    assertThatThrownBy(() -> SqsRouter.byAggregateType(Map.of("order", "")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("order");
    assertThatThrownBy(() -> SqsRouter.byAggregateType(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("routes");
  }

  @Test
  void refusesANonPositiveSendTimeout() {
    assertThatThrownBy(() -> valid().sendTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sendTimeout must be positive but was 0ms");
    assertThatThrownBy(() -> valid().sendTimeout(Duration.ofSeconds(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sendTimeout must be positive but was -1000ms");
  }

  @Test
  void refusesAMessageLimitOutsideWhatSqsAllows() {
    assertThatThrownBy(() -> valid().maxMessageBytes(1023).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxMessageBytes must be from 1024 to 1048576 but was 1023");
    assertThatThrownBy(() -> valid().maxMessageBytes(SqsPublisher.SQS_MAX_BYTES + 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxMessageBytes");
  }

  @Test
  void refusesABatchLimitBelowTheMessageLimitOrAboveWhatSqsAllows() {
    assertThatThrownBy(() -> valid().maxMessageBytes(4096).maxBatchBytes(4095).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBatchBytes must be from maxMessageBytes (4096) to 1048576 but was 4095");
    assertThatThrownBy(() -> valid().maxBatchBytes(SqsPublisher.SQS_MAX_BYTES + 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBatchBytes");
  }

  @Test
  void aBuilderChangedAfterBuildDoesNotChangeThePublisher() throws Exception {
    SqsPublisher.Builder builder = valid();
    SqsPublisher publisher = builder.build();
    builder.route("invoice", "invoices");

    assertThat(publisher.publish(java.util.List.of(Messages.message("invoice", "i", "{}"))))
        .allMatch(dev.txoutbox.spi.PublishResult::isPermanent);
  }
}
