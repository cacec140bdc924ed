/**
 * The WAL relay: {@link dev.txoutbox.wal.WalRelay} publishes the outbox table's inserts from a
 * logical replication slot in commit order, beside a polling relay that retries, dead-letters and
 * sweeps. See the module's README for the guarantee and the pitfalls.
 */
@NullMarked
package dev.txoutbox.wal;

import org.jspecify.annotations.NullMarked;
