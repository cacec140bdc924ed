package dev.txoutbox.bench;

import dev.txoutbox.PublishTracer;
import dev.txoutbox.tracing.OpenTelemetryPublishTracer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The OpenTelemetry side of {@link TracingBenchmark}'s traced cases, the one class of the benchmark
 * that names OpenTelemetry, so the {@code absent} case runs without it on its class path. One case
 * per JVM.
 */
final class TracingSetup {

  /** Spans ended through an SDK's span processor in this JVM. */
  private static final AtomicLong ENDED = new AtomicLong();

  private TracingSetup() {}

  /**
   * The tracer of case {@code kase}: {@code noop}, {@code off}, {@code drop} or {@code memory}
   * ({@link TracingBenchmark#CASES}).
   *
   * @throws IllegalArgumentException for another case
   */
  static PublishTracer tracer(String kase) {
    OpenTelemetry openTelemetry =
        switch (kase) {
          case "noop" -> OpenTelemetry.noop();
          case "off" -> sdk(Sampler.alwaysOff(), COUNTING);
          case "drop" -> sdk(Sampler.alwaysOn(), COUNTING);
          case "memory" ->
              sdk(
                  Sampler.alwaysOn(),
                  SpanProcessor.composite(
                      SimpleSpanProcessor.create(InMemorySpanExporter.create()), COUNTING));
          default -> throw new IllegalArgumentException("no traced case " + kase);
        };
    return OpenTelemetryPublishTracer.create(openTelemetry);
  }

  /** How many spans ended through the SDK's span processor. */
  static long recorded() {
    return ENDED.get();
  }

  private static OpenTelemetry sdk(Sampler sampler, SpanProcessor processor) {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().setSampler(sampler).addSpanProcessor(processor).build())
        .build();
  }

  /** Counts each ended span and keeps nothing of it. */
  private static final SpanProcessor COUNTING =
      new SpanProcessor() {
        @Override
        public void onStart(Context parentContext, ReadWriteSpan span) {}

        @Override
        public boolean isStartRequired() {
          return false;
        }

        @Override
        public void onEnd(ReadableSpan span) {
          ENDED.incrementAndGet();
        }

        @Override
        public boolean isEndRequired() {
          return true;
        }
      };
}
