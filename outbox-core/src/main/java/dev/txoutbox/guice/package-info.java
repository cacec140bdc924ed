/**
 * Guice wiring: {@link dev.txoutbox.guice.OutboxModule} binds an outbox, {@link
 * dev.txoutbox.guice.OutboxLifecycle} starts and closes every bound relay and publisher.
 */
@NullMarked
package dev.txoutbox.guice;

import org.jspecify.annotations.NullMarked;
