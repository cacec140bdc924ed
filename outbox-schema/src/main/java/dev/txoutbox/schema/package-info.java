/**
 * The outbox tables: Flyway migrations ({@link dev.txoutbox.schema.OutboxSchema}), where they are
 * ({@link dev.txoutbox.schema.OutboxTables}: schema and table prefix) and the jOOQ model generated
 * from them at build time ({@code dev.txoutbox.schema.model}, schema class {@code OutboxModel}).
 */
package dev.txoutbox.schema;
