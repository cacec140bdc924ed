package dev.txoutbox.inbox.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.inbox.InboxEvent;
import dev.txoutbox.inbox.InboxWork;
import dev.txoutbox.inbox.OutboxInbox;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.testing.TestDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link InboxTracing}: the consumer's span continues the event's trace, on real PostgreSQL. */
class InboxTracingTest {

  private static TestDatabase db;
  private static DSLContext dsl;
  private static OutboxInbox inbox;

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final SdkTracerProvider tracerProvider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  private final Tracer producer = tracerProvider.get("producer");
  private final InboxTracing tracing =
      InboxTracing.create(OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build());

  @BeforeAll
  static void migrate() {
    db = TestDatabase.createEmpty("inbox_tracing", 2);
    OutboxInbox.migrate(db.dataSource(), db.schema());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    db.execute("CREATE TABLE " + db.schema() + ".bookings (event_id uuid)");
    inbox = OutboxInbox.builder().schema(db.schema()).build();
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @AfterEach
  void closeTracing() {
    tracerProvider.close();
  }

  /** A delivered event whose headers carry {@code sender}'s context, as the relay sends it. */
  private static InboxEvent delivered(Span sender) {
    Map<String, String> headers = new HashMap<>();
    headers.put(OutboxHeaders.EVENT_ID, UUID.randomUUID().toString());
    headers.put(OutboxHeaders.EVENT_TYPE, "invoice.created");
    headers.put(OutboxHeaders.AGGREGATE_TYPE, "invoice");
    headers.put(OutboxHeaders.AGGREGATE_ID, "i-1");
    headers.put(OutboxHeaders.CREATED_AT, "2026-12-06T12:00:00.000000Z");
    W3CTraceContextPropagator.getInstance().inject(Context.root().with(sender), headers, Map::put);
    return InboxEvent.from(headers);
  }

  private boolean deliver(InboxEvent event, InboxWork work) {
    return dsl.transactionResult(c -> tracing.process(inbox, c.dsl(), "billing", event, work));
  }

  private static InboxWork book(InboxEvent event, AtomicReference<SpanContext> currentInWork) {
    return tx -> {
      currentInWork.set(Span.current().getSpanContext());
      tx.insertInto(DSL.table(DSL.name(db.schema(), "bookings")))
          .columns(DSL.field("event_id", SQLDataType.UUID))
          .values(event.eventId())
          .execute();
    };
  }

  private List<SpanData> processSpans() {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.CONSUMER)
        .toList();
  }

  @Test
  void theProcessSpanIsTheSendSpansChildAndCurrentWhileTheWorkRuns() {
    Span send = producer.spanBuilder("send invoices").setSpanKind(SpanKind.PRODUCER).startSpan();
    send.end();
    InboxEvent event = delivered(send);
    AtomicReference<SpanContext> inWork = new AtomicReference<>();

    assertThat(deliver(event, book(event, inWork))).isTrue();
    assertThat(deliver(event, book(event, new AtomicReference<>()))).isFalse();

    List<SpanData> processed = processSpans();
    assertThat(processed).hasSize(2);
    SpanData first = processed.get(0);
    assertThat(first.getName()).isEqualTo("process");
    assertThat(first.getParentSpanId()).isEqualTo(send.getSpanContext().getSpanId());
    assertThat(first.getTraceId()).isEqualTo(send.getSpanContext().getTraceId());
    assertThat(first.getLinks())
        .extracting(l -> l.getSpanContext().getSpanId())
        .containsExactly(send.getSpanContext().getSpanId());
    assertThat(inWork.get().getSpanId()).isEqualTo(first.getSpanId());
    assertThat(first.getAttributes().asMap())
        .containsEntry(AttributeKey.stringKey("messaging.operation.type"), "process")
        .containsEntry(AttributeKey.stringKey("messaging.message.id"), event.eventId().toString())
        .containsEntry(AttributeKey.stringKey("txoutbox.event.type"), "invoice.created")
        .containsEntry(AttributeKey.stringKey("txoutbox.inbox.consumer"), "billing")
        .containsEntry(AttributeKey.booleanKey("txoutbox.inbox.duplicate"), false);
    assertThat(
            processed
                .get(1)
                .getAttributes()
                .get(AttributeKey.booleanKey("txoutbox.inbox.duplicate")))
        .isTrue();
  }

  @Test
  void aFailingWorkEndsTheSpanAsAnErrorAndIsThrownOn() {
    Span send = producer.spanBuilder("send invoices").startSpan();
    send.end();
    InboxEvent event = delivered(send);

    assertThatThrownBy(
            () ->
                deliver(
                    event,
                    tx -> {
                      throw new IllegalStateException("no credit for postgres://u:s3cret@db");
                    }))
        .hasMessageContaining("no credit");

    SpanData failed = processSpans().get(0);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getStatus().getDescription()).doesNotContain("s3cret");
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("java.lang.IllegalStateException");
    // The inbox undid the mark: the next delivery processes the event.
    assertThat(deliver(event, tx -> {})).isTrue();
  }

  @Test
  void aSpanCurrentOnTheCallingThreadIsLinkedNotLost() {
    Span send = producer.spanBuilder("send invoices").startSpan();
    send.end();
    InboxEvent event = delivered(send);
    Span poll = producer.spanBuilder("poll invoices").startSpan();

    try (Scope ignored = poll.makeCurrent()) {
      assertThat(deliver(event, tx -> {})).isTrue();
    } finally {
      poll.end();
    }

    SpanData processed = processSpans().get(0);
    assertThat(processed.getParentSpanId()).isEqualTo(send.getSpanContext().getSpanId());
    assertThat(processed.getLinks())
        .extracting(l -> l.getSpanContext().getSpanId())
        .containsExactly(send.getSpanContext().getSpanId(), poll.getSpanContext().getSpanId());
  }

  @Test
  void rejectsNullsNamingTheParameter() {
    InboxEvent event = delivered(Span.getInvalid());
    assertThatThrownBy(() -> InboxTracing.create(null)).hasMessage("openTelemetry");
    assertThatThrownBy(() -> tracing.process(null, dsl, "c", event, tx -> {})).hasMessage("inbox");
    assertThatThrownBy(() -> tracing.process(inbox, dsl, "c", null, tx -> {})).hasMessage("event");
    assertThatThrownBy(() -> tracing.process(inbox, dsl, "c", event, null)).hasMessage("work");
  }
}
