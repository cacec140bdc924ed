/** Guice wiring: {@link dev.txoutbox.guice.OutboxModule}. */
package dev.txoutbox.guice;
