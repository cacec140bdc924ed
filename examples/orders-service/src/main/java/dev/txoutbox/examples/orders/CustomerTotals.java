package dev.txoutbox.examples.orders;

import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.sum;

import java.math.BigDecimal;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.impl.SQLDataType;

/**
 * Compares the consumer's projection ({@code customer_totals}) with the orders it was built from,
 * for one run's customers. If an event had been applied twice, or not at all, they would differ.
 * Thread-safe: it holds no state.
 */
final class CustomerTotals {

  private CustomerTotals() {}

  /**
   * Whether the customers whose id starts with {@code customerPrefix} have, in {@code
   * customer_totals}, exactly {@code expectedOrders} orders and the same revenue as in {@code
   * orders}. The two tables are in two schemas, the producer's {@code schema} and {@code
   * consumerSchema}.
   */
  static boolean match(
      DSLContext dsl,
      String schema,
      String consumerSchema,
      String customerPrefix,
      long expectedOrders) {
    Record2<Integer, BigDecimal> orders =
        dsl.select(count(), coalesce(sum(OrdersSchema.TOTAL_CENTS), BigDecimal.ZERO))
            .from(OrdersSchema.orders(schema))
            .where(OrdersSchema.CUSTOMER_ID.like(customerPrefix + "%"))
            .fetchOne();
    Record2<BigDecimal, BigDecimal> totals =
        dsl.select(
                coalesce(sum(field(name("orders"), SQLDataType.BIGINT)), BigDecimal.ZERO),
                coalesce(sum(field(name("total_cents"), SQLDataType.BIGINT)), BigDecimal.ZERO))
            .from(OrdersSchema.customerTotals(consumerSchema))
            .where(field(name("customer_id"), SQLDataType.VARCHAR).like(customerPrefix + "%"))
            .fetchOne();
    return orders.value1() == expectedOrders
        && totals.value1().longValueExact() == expectedOrders
        && orders.value2().compareTo(totals.value2()) == 0;
  }
}
