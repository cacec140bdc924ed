/** Internal: admin operations. Not an API. */
@NullMarked
package dev.txoutbox.internal.admin;

import org.jspecify.annotations.NullMarked;
