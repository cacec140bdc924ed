/**
 * The outbox writer, the relay and the admin operations ({@code dev.txoutbox}), with optional Guice
 * glue ({@code dev.txoutbox.guice}), Micrometer metrics ({@code dev.txoutbox.metrics}) and
 * OpenTelemetry trace propagation ({@code dev.txoutbox.tracing}). The implementation packages under
 * {@code dev.txoutbox.internal} are not exported, except two to outbox-wal by qualified exports: it
 * is released in lockstep with this module and shares the relay kernel ({@code
 * internal.relay.PublishStep}: publisher contract, fates, recording, reports, outage words), the
 * polling relay's statements and start-up checks ({@code internal.relay.RelayStore}, {@code
 * RenderedOnce}, {@code ErrorText}) and the outbox meters ({@code internal.metrics.RelayMeters}).
 *
 * <p>The publisher SPI, the schema and jOOQ appear in the API and are read by every module that
 * reads this one. Guice, Micrometer, OpenTelemetry and the PostgreSQL driver's API are optional
 * ({@code requires static}, so an application compiles and runs without them): an application that
 * uses {@code dev.txoutbox.guice}, {@code dev.txoutbox.metrics} or {@code dev.txoutbox.tracing}
 * requires the matching library itself.
 */
@SuppressWarnings(
    "module") // dev.txoutbox.wal, of the qualified exports, is built after this module
module dev.txoutbox.core {
  requires transitive dev.txoutbox.spi;
  requires transitive dev.txoutbox.schema;
  requires transitive org.jooq;
  requires transitive java.sql;
  requires org.slf4j;
  requires static org.jspecify;
  requires static com.google.guice;
  requires static micrometer.core;
  requires static io.opentelemetry.api;
  requires static io.opentelemetry.context;
  requires static org.postgresql.jdbc;

  exports dev.txoutbox;
  exports dev.txoutbox.guice;
  exports dev.txoutbox.metrics;
  exports dev.txoutbox.tracing;

  // outbox-wal, released with this module, decides and records every event's fate through the
  // relay kernel (PublishStep), reads headers, checks the ordering indexes and registers the relay
  // meters exactly as the polling relay does. internal.json is no longer needed there.
  exports dev.txoutbox.internal.metrics to
      dev.txoutbox.wal;
  exports dev.txoutbox.internal.relay to
      dev.txoutbox.wal;
  // The WAL relay writes the same heartbeat rows as the polling relay.
  exports dev.txoutbox.internal.heartbeat to
      dev.txoutbox.wal;

  // Guice injects the module's private nested providers.
  opens dev.txoutbox.guice to
      com.google.guice;
}
