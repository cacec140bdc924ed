/** Internal: the relay implementation. Not an API. */
@NullMarked
package dev.txoutbox.internal.relay;

import org.jspecify.annotations.NullMarked;
