/**
 * What outbox-wal shares with the polling relay, through one type ({@link
 * dev.txoutbox.internal.kernel.RelayKernel}); exported to outbox-wal only.
 */
@NullMarked
package dev.txoutbox.internal.kernel;

import org.jspecify.annotations.NullMarked;
