/**
 * The txoutbox API: {@link dev.txoutbox.Outbox} records events in the caller's jOOQ transaction,
 * {@link dev.txoutbox.OutboxRelay} publishes them through a {@link dev.txoutbox.spi.Publisher},
 * {@link dev.txoutbox.OutboxAdmin} serves operators.
 */
package dev.txoutbox;
