/**
 * The txoutbox API: {@link dev.txoutbox.Outbox} records events in the caller's jOOQ transaction,
 * {@link dev.txoutbox.OutboxRelay} publishes them through a {@link dev.txoutbox.spi.Publisher},
 * {@link dev.txoutbox.OutboxAdmin} serves operators.
 *
 * <p>Every type in txoutbox's packages is non-null unless marked {@link
 * org.jspecify.annotations.Nullable} (jspecify, read by NullAway, Kotlin and IDEs when jspecify is
 * on their class path).
 */
@NullMarked
package dev.txoutbox;

import org.jspecify.annotations.NullMarked;
