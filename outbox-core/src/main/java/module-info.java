/**
 * The outbox writer, the relay and the admin operations ({@code dev.txoutbox}), with optional Guice
 * glue ({@code dev.txoutbox.guice}), Micrometer metrics ({@code dev.txoutbox.metrics}) and
 * OpenTelemetry trace propagation ({@code dev.txoutbox.tracing}). The implementation packages under
 * {@code dev.txoutbox.internal} are not exported, except one to outbox-wal by a qualified export:
 * it is released in lockstep with this module and reaches what it shares with the polling relay
 * through one type, {@code internal.kernel.RelayKernel}: the relay kernel (publisher contract,
 * fates, recording, reports), the one broker outage tracker and the database outage's words, the
 * heartbeat row, the outbox meters, and the polling relay's start-up checks and pieces of
 * statements.
 *
 * <p>The publisher SPI, the schema and jOOQ appear in the API and are read by every module that
 * reads this one. Guice, Micrometer, OpenTelemetry and the PostgreSQL driver's API are optional
 * ({@code requires static}, so an application compiles and runs without them): an application that
 * uses {@code dev.txoutbox.guice}, {@code dev.txoutbox.metrics} or {@code dev.txoutbox.tracing}
 * requires the matching library itself.
 */
@SuppressWarnings("module") // dev.txoutbox.wal, of the qualified export, is built after this module
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

  // outbox-wal, released with this module, decides and records every event's fate, tracks broker
  // outages, beats, registers the outbox meters and checks the ordering indexes exactly as the
  // polling relay does, all through RelayKernel, the one type of this package.
  exports dev.txoutbox.internal.kernel to
      dev.txoutbox.wal;

  // Guice injects the module's private nested providers.
  opens dev.txoutbox.guice to
      com.google.guice;
}
