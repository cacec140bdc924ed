/** Internal: admin operations. Not an API. */
package dev.txoutbox.internal.admin;
