package dev.txoutbox.internal.writer;

import java.time.OffsetDateTime;
import org.jooq.JSONB;

/** The checked column values of one event row. */
record EventRow(
    String aggregateType,
    String aggregateId,
    String eventType,
    JSONB payload,
    JSONB headers,
    OffsetDateTime notBefore) {}
