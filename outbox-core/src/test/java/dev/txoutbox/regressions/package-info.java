/**
 * Tests for bugs fixed earlier, one class per bug, named after what broke, so that a failure names
 * the old bug coming back. Each drives the relay through its public API against PostgreSQL.
 */
package dev.txoutbox.regressions;
