package dev.txoutbox.internal.writer;

import java.time.OffsetDateTime;
import org.jooq.JSONB;
import org.jspecify.annotations.Nullable;

/**
 * The checked column values of one event row.
 *
 * @param wireBytes an upper bound of the UTF-8 bytes of its payload and headers text, for sizing
 *     statements
 */
record EventRow(
    String aggregateType,
    String aggregateId,
    String eventType,
    JSONB payload,
    JSONB headers,
    @Nullable OffsetDateTime notBefore,
    long wireBytes) {}
