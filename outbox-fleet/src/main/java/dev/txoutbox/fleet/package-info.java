/**
 * The relay fleet: many outboxes served by several processes. {@link
 * dev.txoutbox.fleet.FleetRegistry} keeps the outboxes in a control database ({@link
 * dev.txoutbox.fleet.FleetSchema}); each {@link dev.txoutbox.fleet.FleetNode} registers itself,
 * takes leases on outboxes in the same database, and runs one relay per outbox it holds.
 */
@NullMarked
package dev.txoutbox.fleet;

import org.jspecify.annotations.NullMarked;
