/**
 * The service-provider interface for broker plugins: {@link dev.txoutbox.spi.Publisher} takes a
 * batch of {@link dev.txoutbox.spi.OutboxMessage}s and returns a {@link
 * dev.txoutbox.spi.PublishResult} per message. Plugins depend on this package only.
 *
 * <p>{@link dev.txoutbox.spi.OutboxMessage} is a final class made by its builder, with no public
 * constructor, so that a field added in a later version breaks no plugin that builds or reads
 * messages.
 *
 * <p>Every type here is non-null unless marked {@link org.jspecify.annotations.Nullable} (jspecify,
 * read by NullAway, Kotlin and IDEs when jspecify is on their class path).
 */
@NullMarked
package dev.txoutbox.spi;

import org.jspecify.annotations.NullMarked;
