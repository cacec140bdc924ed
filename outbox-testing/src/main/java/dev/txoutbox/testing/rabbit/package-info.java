/**
 * A RabbitMQ broker the user runs, for tests: {@link dev.txoutbox.testing.rabbit.RabbitBroker}.
 * Needs {@code com.rabbitmq:amqp-client} on the test class path.
 */
package dev.txoutbox.testing.rabbit;
