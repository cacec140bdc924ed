/**
 * The txoutbox example: an order service wired with Guice. {@link
 * dev.txoutbox.examples.orders.CreateOrder} writes an order and its {@code order.created} event in
 * one transaction; the outbox relay publishes the events to Kafka; a downstream consumer processes
 * each event once with outbox-inbox's {@link dev.txoutbox.inbox.OutboxInbox}, in a schema of its
 * own; {@link dev.txoutbox.examples.orders.OrdersServiceMain} runs it all and checks that nothing
 * was lost.
 */
package dev.txoutbox.examples.orders;
