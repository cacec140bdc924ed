/** Internal: the relay implementation. Not an API. */
package dev.txoutbox.internal.relay;
