/**
 * The fleet's implementation: lease SQL, balancing, and one runner per outbox. Not an API: it may
 * change in any release.
 */
@NullMarked
package dev.txoutbox.fleet.internal;

import org.jspecify.annotations.NullMarked;
