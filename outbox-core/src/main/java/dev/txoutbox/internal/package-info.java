/** Internal: what the relay and the admin operations share. Not an API. */
package dev.txoutbox.internal;
