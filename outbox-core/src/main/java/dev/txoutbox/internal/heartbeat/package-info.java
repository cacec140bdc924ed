/**
 * Relay heartbeats: each running relay's row in {@code <prefix>outbox_relays}, which the operations
 * console reads to show which relays run and when each last completed a cycle. Not an API: exported
 * only to modules released with outbox-core.
 */
@NullMarked
package dev.txoutbox.internal.heartbeat;

import org.jspecify.annotations.NullMarked;
