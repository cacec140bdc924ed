package dev.txoutbox.bench;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.schema.OutboxSchema;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Writes benchmark events fast: one {@code INSERT … SELECT} over {@code generate_series} per
 * 100,000, each row what the writer makes of an {@code order.created} event (a 180-byte JSON
 * payload, a {@code traceparent} header). Stateless.
 */
final class SeedEvents {

  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  private static final int CHUNK = 100_000;

  private SeedEvents() {}

  /**
   * Inserts {@code count} events into the outbox of {@code schema}, the n-th of aggregate {@code
   * order-(n % aggregates)}, with {@code processed_at} and {@code retry_after} set to the given
   * values (null for none): pending events, processed rows of the history, or delayed events.
   */
  static void insert(
      DSLContext dsl,
      String schema,
      int count,
      int aggregates,
      Field<OffsetDateTime> processedAt,
      Field<OffsetDateTime> retryAfter) {
    DSLContext mapped =
        DSL.using(dsl.configuration().derive(OutboxSchema.withSchema(null, schema)));
    Field<Integer> n = DSL.field(DSL.name("g", "n"), Integer.class);
    Field<String> aggregate = DSL.inline("order-").concat(n.mod(aggregates));
    Field<JSONB> payload =
        DSL.inline("{\"orderId\":\"")
            .concat(aggregate)
            .concat(
                DSL.inline(
                    "\",\"customer\":\"c-42\",\"total\":{\"amount\":\"129.90\","
                        + "\"currency\":\"EUR\"},\"lines\":[{\"sku\":\"A-1\",\"qty\":2},"
                        + "{\"sku\":\"B-7\",\"qty\":1}]}"))
            .cast(SQLDataType.JSONB);
    for (int from = 0; from < count; from += CHUNK) {
      mapped
          .insertInto(
              OUTBOX_EVENTS,
              OUTBOX_EVENTS.ID,
              OUTBOX_EVENTS.AGGREGATE_TYPE,
              OUTBOX_EVENTS.AGGREGATE_ID,
              OUTBOX_EVENTS.EVENT_TYPE,
              OUTBOX_EVENTS.PAYLOAD,
              OUTBOX_EVENTS.HEADERS,
              OUTBOX_EVENTS.PROCESSED_AT,
              OUTBOX_EVENTS.RETRY_AFTER)
          .select(
              DSL.select(
                      DSL.function("gen_random_uuid", UUID.class),
                      DSL.inline("order"),
                      aggregate,
                      DSL.inline("order.created"),
                      payload,
                      DSL.inline(JSONB.jsonb("{\"traceparent\":\"" + TRACEPARENT + "\"}")),
                      processedAt == null ? DSL.castNull(OUTBOX_EVENTS.PROCESSED_AT) : processedAt,
                      retryAfter == null ? DSL.castNull(OUTBOX_EVENTS.RETRY_AFTER) : retryAfter)
                  .from(DSL.generateSeries(from + 1, Math.min(count, from + CHUNK)).as("g", "n")))
          .execute();
    }
  }
}
