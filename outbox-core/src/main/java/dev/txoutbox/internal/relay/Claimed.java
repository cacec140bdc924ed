package dev.txoutbox.internal.relay;

import java.util.List;

/**
 * What a claim locked, in {@code seq} order, and whether it used up its budget: a full claim means
 * more events may be waiting, so the worker claims again at once.
 */
record Claimed<T>(List<T> events, boolean full) {}
