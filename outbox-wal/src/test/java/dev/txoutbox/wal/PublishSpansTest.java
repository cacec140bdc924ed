package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Backoff;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.tracing.OpenTelemetryHeadersProvider;
import dev.txoutbox.tracing.OpenTelemetryPublishTracer;
import dev.txoutbox.tracing.TraceHeaders;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One scenario through both relays, traced: the writer's span, a send span per event and attempt
 * linked to it (a retry is a span of its own with its attempt number), and the consumer's span a
 * child of the send span through the headers the publisher was given. Both relays publish through
 * the same kernel, so they must give the same spans; the WAL relay's retry is its sweeper's.
 */
class PublishSpansTest {

  enum Kind {
    POLLING,
    WAL
  }

  private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("txoutbox.attempt");
  private static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  private static final AtomicInteger RUNS = new AtomicInteger();

  private final WalTestKit kit = new WalTestKit();
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  private final OpenTelemetry otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();

  @AfterEach
  void close() throws Exception {
    kit.close();
    provider.close();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void eachAttemptIsASendSpanLinkedToTheWriterAndParentOfTheConsumer(Kind kind) {
    OutboxTables tables = LogicalServer.freshOutbox("spans_");
    String name = "spans" + RUNS.incrementAndGet();
    RelayConfig config =
        RelayConfig.builder()
            .name(name)
            .backoff(
                Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(10)).withJitter(0))
            .minPollInterval(Duration.ofMillis(50))
            .maxPollInterval(Duration.ofMillis(100))
            .build();
    // The first event's first attempt fails; everything else is published.
    AtomicBoolean failed = new AtomicBoolean();
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.eventType().equals("first") && failed.compareAndSet(false, true)
                        ? PublishResult.retryable("broker said no")
                        : PublishResult.published());
    OpenTelemetryPublishTracer tracer = OpenTelemetryPublishTracer.create(otel);
    if (kind == Kind.POLLING) {
      OutboxRelay relay =
          kit.closing(
              OutboxRelay.builder()
                  .dataSource(LogicalServer.dataSource())
                  .tables(tables)
                  .publisher(publisher)
                  .config(config)
                  .publishTracer(tracer)
                  .build());
      relay.start();
    } else {
      // Its sweeper, which retries the failed event, is traced by the same tracer.
      kit.relay(
              WalTestKit.builder(tables, publisher, config)
                  .sweeper(true)
                  .sweepInterval(Duration.ofMillis(100))
                  .publishTracer(tracer))
          .start();
    }

    Outbox outbox =
        Outbox.builder().tables(tables).headersProvider(new OpenTelemetryHeadersProvider()).build();
    Span writer = otel.getTracer("test").spanBuilder("place order").startSpan();
    UUID first;
    UUID second;
    try (Scope ignored = writer.makeCurrent()) {
      List<UUID> ids =
          LogicalServer.dsl(tables)
              .transactionResult(
                  c ->
                      outbox.recordAll(
                          c.dsl(),
                          List.of(
                              OutboxEvent.of("order", "o-1", "first", "{}"),
                              OutboxEvent.of("order", "o-2", "second", "{}"))));
      first = ids.get(0);
      second = ids.get(1);
    } finally {
      writer.end();
    }

    await()
        .atMost(WalTestKit.WAIT)
        .until(() -> publisher.publishedIds().containsAll(List.of(first, second)));
    await().atMost(WalTestKit.WAIT).until(() -> sends().size() >= 3);

    List<SpanData> sends = sends();
    assertThat(sends).hasSize(3);
    for (SpanData send : sends) {
      assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
      // Linked to the writer's span, in a trace of its own: a publish may come much later.
      assertThat(send.getLinks())
          .extracting(l -> l.getSpanContext().getSpanId())
          .containsExactly(writer.getSpanContext().getSpanId());
      assertThat(send.getTraceId()).isNotEqualTo(writer.getSpanContext().getTraceId());
    }
    assertThat(sends)
        .filteredOn(s -> first.toString().equals(s.getAttributes().get(MESSAGE_ID)))
        .extracting(
            s -> s.getAttributes().get(ATTEMPT),
            s -> s.getStatus().getStatusCode(),
            s -> s.getAttributes().get(ERROR_TYPE))
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(1L, StatusCode.ERROR, "retryable"),
            org.assertj.core.groups.Tuple.tuple(2L, StatusCode.OK, null));
    assertThat(sends)
        .filteredOn(s -> second.toString().equals(s.getAttributes().get(MESSAGE_ID)))
        .extracting(s -> s.getAttributes().get(ATTEMPT))
        .containsExactly(1L);

    // The message the broker got carries its send span's context: the consumer's span is its child.
    OutboxMessage delivered =
        publisher.published().stream().filter(m -> m.id().equals(second)).findFirst().orElseThrow();
    SpanContext parent =
        Span.fromContext(TraceHeaders.extract(delivered.headers())).getSpanContext();
    SpanData secondSend =
        sends.stream()
            .filter(s -> second.toString().equals(s.getAttributes().get(MESSAGE_ID)))
            .findFirst()
            .orElseThrow();
    assertThat(parent.getSpanId()).isEqualTo(secondSend.getSpanId());
    assertThat(parent.getTraceId()).isEqualTo(secondSend.getTraceId());
    // What the relay recorded is the row as written: the writer's context stays in the table.
    String stored =
        LogicalServer.dsl(tables)
            .select(dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS.HEADERS)
            .from(dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS)
            .where(dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS.ID.eq(second))
            .fetchSingle()
            .value1()
            .data();
    assertThat(stored).contains(writer.getSpanContext().getSpanId());
  }

  private List<SpanData> sends() {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.PRODUCER)
        .toList();
  }
}
