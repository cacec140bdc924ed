/** Internal: the writer implementation. Not an API. */
@NullMarked
package dev.txoutbox.internal.writer;

import org.jspecify.annotations.NullMarked;
