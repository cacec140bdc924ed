/**
 * The consumer side of the outbox: {@link dev.txoutbox.inbox.OutboxInbox}, an idempotent consumer
 * that records the event ids each consumer processed in the consumer's own database, inside the
 * consumer's jOOQ transaction, and runs a consumer's {@link dev.txoutbox.inbox.InboxWork} the first
 * time only; and {@link dev.txoutbox.inbox.InboxEvent}, the identity of a delivered event read from
 * the headers every txoutbox publisher writes. The jOOQ model generated from the inbox migrations
 * at build time is in {@code dev.txoutbox.inbox.model}.
 */
@NullMarked
package dev.txoutbox.inbox;

import org.jspecify.annotations.NullMarked;
