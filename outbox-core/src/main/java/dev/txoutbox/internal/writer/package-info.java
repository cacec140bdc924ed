/** Internal: the writer implementation. Not an API. */
package dev.txoutbox.internal.writer;
