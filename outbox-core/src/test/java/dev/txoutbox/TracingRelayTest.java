package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import dev.txoutbox.tracing.OpenTelemetryHeadersProvider;
import dev.txoutbox.tracing.TraceHeaders;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The writer's trace context travels in the stored headers to the publisher. */
class TracingRelayTest {

  private static TestDatabase db;
  private static DSLContext dsl;
  private static DSLContext mapped;
  private static SdkTracerProvider tracerProvider;

  private Outbox outbox;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("tracing");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    mapped = TestSupport.mapped(db);
    // Without a span processor the SDK hands out no-op tracers.
    tracerProvider =
        SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(InMemorySpanExporter.create()))
            .build();
  }

  @AfterAll
  static void drop() {
    tracerProvider.close();
    db.close();
  }

  @BeforeEach
  void writer() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
    outbox =
        Outbox.builder()
            .schema(db.schema())
            .headersProvider(new OpenTelemetryHeadersProvider())
            .build();
  }

  private String storedHeader(UUID id, String name) {
    return mapped
        .select(DSL.jsonbGetAttributeAsText(OUTBOX_EVENTS.HEADERS, name))
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.ID.eq(id))
        .fetchSingle()
        .value1();
  }

  @Test
  void anEventWrittenInsideASpanCarriesItsTraceToThePublisher() throws Exception {
    Span span = tracerProvider.get("orders").spanBuilder("create order").startSpan();
    UUID id;
    try (Scope ignored = span.makeCurrent()) {
      id =
          dsl.transactionResult(
              tx -> outbox.record(tx.dsl(), "order", "o-1", "order.created", "{}"));
    } finally {
      span.end();
    }
    SpanContext sc = span.getSpanContext();
    String traceparent =
        "00-" + sc.getTraceId() + "-" + sc.getSpanId() + "-" + sc.getTraceFlags().asHex();

    assertThat(storedHeader(id, "traceparent")).isEqualTo(traceparent);

    RecordingPublisher publisher = new RecordingPublisher();
    try (OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .publisher(publisher)
            .build()) {
      assertThat(relay.runOnce()).isEqualTo(1);
    }
    OutboxMessage sent = publisher.published().get(0);
    assertThat(sent).isNotNull();
    assertThat(sent.headers()).containsEntry("traceparent", traceparent);
    assertThat(Span.fromContext(TraceHeaders.extract(sent.headers())).getSpanContext().getTraceId())
        .isEqualTo(sc.getTraceId());
  }

  @Test
  void anEventWrittenOutsideASpanHasNoTraceHeaders() {
    UUID id =
        dsl.transactionResult(tx -> outbox.record(tx.dsl(), "order", "o-2", "order.created", "{}"));

    assertThat(storedHeader(id, "traceparent")).isNull();
  }

  @Test
  void theEventsOwnTraceparentWinsOverTheCurrentSpan() {
    String own = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    Span span = tracerProvider.get("orders").spanBuilder("create order").startSpan();
    UUID id;
    try (Scope ignored = span.makeCurrent()) {
      OutboxEvent event =
          OutboxEvent.builder("order", "o-3", "order.created")
              .payload("{}")
              .header("traceparent", own)
              .build();
      id = dsl.transactionResult(tx -> outbox.record(tx.dsl(), event));
    } finally {
      span.end();
    }

    assertThat(storedHeader(id, "traceparent")).isEqualTo(own);
  }
}
