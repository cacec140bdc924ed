/**
 * Guice wiring for the RabbitMQ publisher: {@link dev.txoutbox.rabbit.guice.RabbitPublisherModule}
 * binds a {@link dev.txoutbox.spi.Publisher} built by the same public builder plain-Java users
 * call. Guice is an optional dependency of this artifact.
 */
package dev.txoutbox.rabbit.guice;
