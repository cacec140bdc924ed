package dev.txoutbox.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.PublishTracer;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.RunOrder;
import dev.txoutbox.testing.TestMessages;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tracer's own rules, around a publisher that answers what the test says (the end-to-end test
 * with a real broker is publisher-kafka's KafkaPublishTracingTest).
 */
class OpenTelemetryPublishTracerTest {

  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final SdkTracerProvider tracerProvider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  private final OpenTelemetry otel =
      OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();

  /** A publisher that names its system and destination, and is never asked to publish here. */
  private static final Publisher PUBLISHER =
      new Publisher() {
        @Override
        public List<PublishResult> publish(List<OutboxMessage> messages) {
          throw new AssertionError("the tracer must not publish");
        }

        @Override
        public String messagingSystem() {
          return "rabbitmq";
        }

        @Override
        public String destinationName(OutboxMessage message) {
          return message.aggregateType().equals("default") ? "" : "shop";
        }

        @Override
        public Map<String, String> messagingAttributes(OutboxMessage message) {
          return Map.of("messaging.rabbitmq.destination.routing_key", message.eventType());
        }
      };

  @AfterEach
  void close() {
    tracerProvider.close();
  }

  private static OutboxMessage message(String aggregateType, Map<String, String> headers) {
    return TestMessages.message()
        .aggregateType(aggregateType)
        .aggregateId("a-1")
        .eventType(aggregateType + ".created")
        .headers(headers)
        .attempt(3)
        .build();
  }

  private Map<String, String> writerHeaders(Span writer) {
    try (Scope ignored = writer.makeCurrent()) {
      return new OpenTelemetryHeadersProvider().headers();
    }
  }

  @Test
  void eachMessageGetsItsOwnSendSpanAndItsContextReplacesTheWritersInItsHeaders() {
    Span writer = tracerProvider.get("app").spanBuilder("write").startSpan();
    Map<String, String> stored = writerHeaders(writer);
    writer.end();
    List<OutboxMessage> batch =
        List.of(
            message("order", Map.of("Traceparent", stored.get("traceparent"), "user", "u-1")),
            message("default", Map.of()));

    PublishTracer.Attempt attempt =
        OpenTelemetryPublishTracer.create(otel).begin("r", PUBLISHER, batch);
    attempt.end(List.of(PublishResult.published(), PublishResult.published()));

    List<SpanData> sends = spans.getFinishedSpanItems().stream().skip(1).toList();
    assertThat(sends).extracting(SpanData::getName).containsExactly("send shop", "send");
    assertThat(sends.get(0).getLinks())
        .extracting(l -> l.getSpanContext().getSpanId())
        .containsExactly(writer.getSpanContext().getSpanId());
    assertThat(sends.get(1).getLinks()).isEmpty();
    assertThat(sends.get(0).getAttributes().get(AttributeKey.longKey("txoutbox.attempt")))
        .isEqualTo(3L);
    assertThat(sends.get(0).getAttributes().asMap())
        .containsEntry(
            AttributeKey.stringKey("messaging.rabbitmq.destination.routing_key"), "order.created")
        .doesNotContainKey(AttributeKey.longKey("messaging.batch.message_count"));
    // The stored header of another case is replaced, not doubled; user headers stay.
    OutboxMessage sent = attempt.messages().get(0);
    assertThat(sent.headers()).containsOnlyKeys("traceparent", "user");
    assertThat(sent.headers().get("traceparent")).contains(sends.get(0).getSpanId());
    assertThat(sent).usingRecursiveComparison().ignoringFields("headers").isEqualTo(batch.get(0));
  }

  @Test
  void eachFailedOutcomeHasItsErrorTypeAndAMaskedReason() {
    List<OutboxMessage> batch =
        List.of(
            message("a", Map.of()),
            message("b", Map.of()),
            message("c", Map.of()),
            message("d", Map.of()));

    PublishTracer.Attempt attempt =
        OpenTelemetryPublishTracer.create(otel).begin("r", PUBLISHER, batch);
    attempt.end(
        List.of(
            PublishResult.retryable("timeout", new IOException("amqp://app:hunter2@rabbit:5672")),
            PublishResult.permanent("unroutable"),
            PublishResult.brokerUnavailable("connection refused to amqp://app:hunter2@rabbit"),
            PublishResult.retryable(RunOrder.NOT_SENT)));

    List<SpanData> sends = spans.getFinishedSpanItems();
    assertThat(sends)
        .extracting(s -> s.getAttributes().get(ERROR_TYPE))
        .containsExactly("retryable", "permanent", "broker_unavailable", "not_sent");
    assertThat(sends).allMatch(s -> s.getStatus().getStatusCode() == StatusCode.ERROR);
    assertThat(sends.get(2).getStatus().getDescription())
        .contains("amqp://app:****@rabbit")
        .doesNotContain("hunter2");
    assertThat(sends.get(0).getEvents().get(0).getAttributes().toString())
        .contains("java.io.IOException")
        .doesNotContain("hunter2");
  }

  @Test
  void aPublishThatThrewEndsEverySpanWithTheExceptionsClass() {
    List<OutboxMessage> batch = List.of(message("a", Map.of()), message("b", Map.of()));

    PublishTracer.Attempt attempt =
        OpenTelemetryPublishTracer.create(otel).begin("r", PUBLISHER, batch);
    attempt.failed(new IllegalStateException("publisher is closed"));
    attempt.end(List.of(PublishResult.published(), PublishResult.published())); // ignored

    assertThat(spans.getFinishedSpanItems())
        .hasSize(2)
        .allSatisfy(
            s -> {
              assertThat(s.getAttributes().get(ERROR_TYPE))
                  .isEqualTo("java.lang.IllegalStateException");
              assertThat(s.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
              assertThat(s.getEvents()).extracting(e -> e.getName()).containsExactly("exception");
            });
  }

  @Test
  void resultsOfTheWrongCountEndTheAttemptAsFailed() {
    List<OutboxMessage> batch = List.of(message("a", Map.of()), message("b", Map.of()));

    OpenTelemetryPublishTracer.create(otel)
        .begin("r", PUBLISHER, batch)
        .end(List.of(PublishResult.published()));

    assertThat(spans.getFinishedSpanItems())
        .hasSize(2)
        .allSatisfy(
            s ->
                assertThat(s.getStatus().getDescription())
                    .contains("returned 1 results for a batch of 2"));
  }

  @Test
  void aNoopOpenTelemetryOrATracerWithoutProcessorReturnsTheSameList() {
    List<OutboxMessage> batch = List.of(message("a", Map.of("traceparent", "00-x")));
    SdkTracerProvider noProcessor = SdkTracerProvider.builder().build();

    assertThat(
            OpenTelemetryPublishTracer.create(OpenTelemetry.noop())
                .begin("r", PUBLISHER, batch)
                .messages())
        .isSameAs(batch);
    assertThat(
            OpenTelemetryPublishTracer.create(
                    OpenTelemetrySdk.builder().setTracerProvider(noProcessor).build())
                .begin("r", PUBLISHER, batch)
                .messages())
        .isSameAs(batch);
    assertThat(PublishTracer.none().begin("r", PUBLISHER, batch).messages()).isSameAs(batch);
    noProcessor.close();
  }

  @Test
  void aSampledOutSpanLeavesItsMessageAsItWasSoTheConsumerFollowsTheWriter() {
    SdkTracerProvider sampledOut =
        SdkTracerProvider.builder()
            .setSampler(Sampler.alwaysOff())
            .addSpanProcessor(SimpleSpanProcessor.create(spans))
            .build();
    List<OutboxMessage> batch = List.of(message("a", Map.of()));

    PublishTracer.Attempt attempt =
        OpenTelemetryPublishTracer.create(
                OpenTelemetrySdk.builder().setTracerProvider(sampledOut).build())
            .begin("r", PUBLISHER, batch);
    attempt.end(List.of(PublishResult.published()));

    assertThat(attempt.messages()).isSameAs(batch);
    assertThat(spans.getFinishedSpanItems()).isEmpty();
    sampledOut.close();
  }

  @Test
  void anotherPropagatorCarriesTheWritersBaggageOn() {
    TextMapPropagator propagator =
        TextMapPropagator.composite(
            W3CTraceContextPropagator.getInstance(), W3CBaggagePropagator.getInstance());
    Span writer = tracerProvider.get("app").spanBuilder("write").startSpan();
    Map<String, String> stored;
    try (Scope ignored =
        Context.current()
            .with(writer)
            .with(Baggage.builder().put("tenant", "acme").build())
            .makeCurrent()) {
      stored = new OpenTelemetryHeadersProvider(propagator).headers();
    }
    writer.end();

    PublishTracer.Attempt attempt =
        OpenTelemetryPublishTracer.create(otel, propagator)
            .begin("r", PUBLISHER, List.of(message("a", stored)));
    attempt.end(List.of(PublishResult.published()));

    assertThat(attempt.messages().get(0).headers())
        .containsEntry("baggage", "tenant=acme")
        .containsKey("traceparent");
    assertThat(attempt.messages().get(0).headers().get("traceparent"))
        .doesNotContain(writer.getSpanContext().getSpanId());
  }

  @Test
  void aPublisherThatBreaksItsPromiseNotToThrowStillGetsASpan() {
    Publisher throwing =
        new Publisher() {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages) {
            return List.of();
          }

          @Override
          public String destinationName(OutboxMessage message) {
            throw new IllegalStateException("router broke");
          }

          @Override
          public Map<String, String> messagingAttributes(OutboxMessage message) {
            throw new IllegalStateException("router broke");
          }
        };

    OpenTelemetryPublishTracer.create(otel)
        .begin("r", throwing, List.of(message("a", Map.of())))
        .end(List.of(PublishResult.permanent("no route")));

    assertThat(spans.getFinishedSpanItems()).extracting(SpanData::getName).containsExactly("send");
  }

  @Test
  void rejectsNullsNamingTheParameter() {
    OpenTelemetryPublishTracer tracer = OpenTelemetryPublishTracer.create(otel);
    List<OutboxMessage> batch = List.of(message("a", Map.of()));

    assertThatThrownBy(() -> OpenTelemetryPublishTracer.create(null)).hasMessage("openTelemetry");
    assertThatThrownBy(() -> OpenTelemetryPublishTracer.create(otel, null))
        .hasMessage("propagator");
    assertThatThrownBy(() -> tracer.begin(null, PUBLISHER, batch)).hasMessage("relayName");
    assertThatThrownBy(() -> tracer.begin("r", null, batch)).hasMessage("publisher");
    assertThatThrownBy(() -> tracer.begin("r", PUBLISHER, null)).hasMessage("batch");
    assertThatThrownBy(() -> PublishTracer.none().begin("r", PUBLISHER, null)).hasMessage("batch");
    PublishTracer.Attempt attempt = tracer.begin("r", PUBLISHER, batch);
    assertThatThrownBy(() -> attempt.end(null)).hasMessage("results");
    assertThatThrownBy(() -> attempt.failed(null)).hasMessage("error");
  }
}
