package dev.txoutbox.internal.relay;

import java.util.UUID;

/** A claimed event known only by its id and aggregate, for reading the batch row by row. */
record ClaimedRow(UUID id, AggregateKey aggregate) {}
