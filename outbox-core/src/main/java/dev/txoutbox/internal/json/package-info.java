/** Internal: minimal JSON checking and header encoding. Not an API. */
@NullMarked
package dev.txoutbox.internal.json;

import org.jspecify.annotations.NullMarked;
