/**
 * The outbox tables: Flyway migrations ({@link dev.txoutbox.schema.OutboxSchema}) and the jOOQ
 * model generated from them at build time ({@code dev.txoutbox.schema.model}).
 */
package dev.txoutbox.schema;
