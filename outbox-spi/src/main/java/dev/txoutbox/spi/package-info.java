/**
 * The service-provider interface for broker plugins: {@link dev.txoutbox.spi.Publisher} takes a
 * batch of {@link dev.txoutbox.spi.OutboxMessage}s and returns a {@link
 * dev.txoutbox.spi.PublishResult} per message. Plugins depend on this package only.
 */
package dev.txoutbox.spi;
