/** Internal: minimal JSON checking and header encoding. Not an API. */
package dev.txoutbox.internal.json;
