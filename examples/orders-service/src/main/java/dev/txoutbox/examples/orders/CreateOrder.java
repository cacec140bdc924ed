package dev.txoutbox.examples.orders;

import com.google.inject.Inject;
import com.google.inject.name.Named;
import dev.txoutbox.Outbox;
import java.util.Objects;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Table;

/**
 * Creates an order: the {@code orders} row and its {@code order.created} event in one jOOQ
 * transaction, so either both exist or neither does. The relay publishes the event once the
 * transaction commits, to the topic named after the aggregate type {@value #AGGREGATE_TYPE}.
 *
 * <p>This class is thread-safe.
 */
public final class CreateOrder {

  /** The aggregate type of order events; the Kafka topic is derived from it. */
  public static final String AGGREGATE_TYPE = "order";

  /** The event type written for each new order. */
  public static final String ORDER_CREATED = "order.created";

  private final DSLContext dsl;
  private final Outbox outbox;
  private final Table<?> orders;

  @Inject
  CreateOrder(DSLContext dsl, Outbox outbox, @Named(OrdersModule.SCHEMA) String schema) {
    this.dsl = dsl;
    this.outbox = outbox;
    this.orders = OrdersSchema.orders(schema);
  }

  /**
   * Creates one order and records its {@code order.created} event, in one transaction.
   *
   * @return the new order's id, which is also the event's aggregate id and Kafka key
   * @throws NullPointerException if {@code customerId} is null
   * @throws IllegalArgumentException if {@code totalCents} is negative
   * @throws org.jooq.exception.DataAccessException if the database fails; nothing was written
   */
  public UUID create(String customerId, long totalCents) {
    Objects.requireNonNull(customerId, "customerId");
    if (totalCents < 0) {
      throw new IllegalArgumentException("totalCents must not be negative but was " + totalCents);
    }
    UUID orderId = UUID.randomUUID();
    String payload =
        "{\"orderId\":\""
            + orderId
            + "\",\"customerId\":\""
            + jsonEscape(customerId)
            + "\",\"totalCents\":"
            + totalCents
            + "}";
    dsl.transaction(
        configuration -> {
          DSLContext tx = configuration.dsl();
          tx.insertInto(orders)
              .set(OrdersSchema.ID, orderId)
              .set(OrdersSchema.CUSTOMER_ID, customerId)
              .set(OrdersSchema.TOTAL_CENTS, totalCents)
              .execute();
          outbox.record(tx, AGGREGATE_TYPE, orderId.toString(), ORDER_CREATED, payload);
        });
    return orderId;
  }

  private static String jsonEscape(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
