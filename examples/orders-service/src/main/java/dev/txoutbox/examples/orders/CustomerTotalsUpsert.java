package dev.txoutbox.examples.orders;

import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The consumer's work for one {@code order.created} event: add the order to its customer's row of
 * {@code customer_totals}, creating the row on the first order. One statement; the event's JSON is
 * read by PostgreSQL. Thread-safe.
 */
final class CustomerTotalsUpsert {

  private static final Field<String> CUSTOMER_ID = DSL.field(DSL.name("customer_id"), String.class);
  private static final Field<Integer> ORDERS = DSL.field(DSL.name("orders"), Integer.class);
  private static final Field<Long> TOTAL_CENTS = DSL.field(DSL.name("total_cents"), Long.class);

  private final Table<?> table;
  private final Field<Integer> currentOrders;
  private final Field<Long> currentTotal;

  CustomerTotalsUpsert(String consumerSchema) {
    this.table = OrdersSchema.customerTotals(consumerSchema);
    // In ON CONFLICT DO UPDATE, the existing row's columns are named through the table.
    this.currentOrders = DSL.field(DSL.name("customer_totals", "orders"), Integer.class);
    this.currentTotal = DSL.field(DSL.name("customer_totals", "total_cents"), Long.class);
  }

  /** Adds the order in {@code payload} (an {@code order.created} event) through {@code tx}. */
  void apply(DSLContext tx, String payload) {
    Field<JSONB> event = DSL.val(JSONB.valueOf(payload));
    tx.insertInto(table, CUSTOMER_ID, ORDERS, TOTAL_CENTS)
        .values(
            DSL.jsonbGetAttributeAsText(event, "customerId"),
            DSL.inline(1),
            DSL.jsonbGetAttributeAsText(event, "totalCents").cast(SQLDataType.BIGINT))
        .onConflict(CUSTOMER_ID)
        .doUpdate()
        .set(ORDERS, currentOrders.plus(1))
        .set(TOTAL_CENTS, currentTotal.plus(DSL.excluded(TOTAL_CENTS)))
        .execute();
  }
}
