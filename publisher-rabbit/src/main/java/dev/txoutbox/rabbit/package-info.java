/**
 * A {@link dev.txoutbox.spi.Publisher} for RabbitMQ: {@link dev.txoutbox.rabbit.RabbitPublisher}
 * sends each batch on a confirm-mode channel as persistent, mandatory messages and reports a
 * message published only when the broker confirmed it and did not return it as unroutable. {@link
 * dev.txoutbox.rabbit.RabbitRouter} chooses the exchange and routing key of each event; {@link
 * dev.txoutbox.rabbit.RabbitPublisherProvider} makes it the standalone relay's {@code rabbit}
 * publisher.
 */
package dev.txoutbox.rabbit;
