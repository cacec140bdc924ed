/** Internal: what the relay and the admin operations share. Not an API. */
@NullMarked
package dev.txoutbox.internal;

import org.jspecify.annotations.NullMarked;
