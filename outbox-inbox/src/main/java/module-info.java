/**
 * The consumer side: {@link dev.txoutbox.inbox.OutboxInbox} records the event ids a consumer
 * processed, and the jOOQ model of its table ({@code dev.txoutbox.inbox.model}). jOOQ and JDBC
 * types appear in the API; Flyway is used inside only. The OpenTelemetry API is optional ({@code
 * requires static}): only {@code dev.txoutbox.inbox.tracing} uses it, and an application that does
 * requires it itself.
 */
module dev.txoutbox.inbox {
  requires transitive java.sql;
  requires transitive org.jooq;
  requires dev.txoutbox.spi;
  requires dev.txoutbox.schema;
  requires flyway.core;
  requires static org.jspecify;
  requires static io.opentelemetry.api;
  requires static io.opentelemetry.context;

  exports dev.txoutbox.inbox;
  exports dev.txoutbox.inbox.tracing;
  exports dev.txoutbox.inbox.model;
  exports dev.txoutbox.inbox.model.tables;
  exports dev.txoutbox.inbox.model.tables.records;
}
