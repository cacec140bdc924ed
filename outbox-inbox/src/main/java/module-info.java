/**
 * The consumer side: {@link dev.txoutbox.inbox.OutboxInbox} records the event ids a consumer
 * processed, and the jOOQ model of its table ({@code dev.txoutbox.inbox.model}). jOOQ and JDBC
 * types appear in the API; Flyway is used inside only.
 */
module dev.txoutbox.inbox {
  requires transitive java.sql;
  requires transitive org.jooq;
  requires dev.txoutbox.spi;
  requires dev.txoutbox.schema;
  requires flyway.core;
  requires static org.jspecify;

  exports dev.txoutbox.inbox;
  exports dev.txoutbox.inbox.model;
  exports dev.txoutbox.inbox.model.tables;
  exports dev.txoutbox.inbox.model.tables.records;
}
