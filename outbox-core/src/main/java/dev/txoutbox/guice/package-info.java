/** Guice wiring: {@link dev.txoutbox.guice.OutboxModule}. */
@NullMarked
package dev.txoutbox.guice;

import org.jspecify.annotations.NullMarked;
