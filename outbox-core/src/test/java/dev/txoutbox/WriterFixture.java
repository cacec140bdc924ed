package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.testing.TestDatabase;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A writer test class's database, as a JUnit extension ({@code @RegisterExtension static}): a
 * migrated schema with a business table {@code orders}, emptied before each test, and the check
 * every refusal must pass: the right exception, a message naming the field and the limit, nothing
 * written, and the caller's transaction still usable (its business rows commit).
 */
final class WriterFixture implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

  private final String prefix;
  TestDatabase db;
  DSLContext dsl;
  DSLContext mapped;
  Table<Record> orders;
  final Field<String> orderId = DSL.field(DSL.name("id"), String.class);

  WriterFixture(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    db = TestDatabase.create(prefix);
    db.execute("CREATE TABLE " + db.schema() + ".orders (id text primary key)");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    mapped = TestSupport.mapped(db);
    orders = DSL.table(DSL.name(db.schema(), "orders"));
  }

  /** Empties the business table and the outbox. */
  @Override
  public void beforeEach(ExtensionContext context) {
    db.execute("TRUNCATE " + db.schema() + ".orders, " + db.schema() + ".outbox_events");
  }

  @Override
  public void afterAll(ExtensionContext context) {
    db.close();
  }

  Outbox.Builder writer() {
    return Outbox.builder().schema(db.schema());
  }

  int eventCount() {
    return mapped.fetchCount(OUTBOX_EVENTS);
  }

  List<String> orderIds() {
    return dsl.select(orderId).from(orders).fetch(orderId);
  }

  /** The stored payload of event {@code id}, as PostgreSQL writes it back. */
  String payload(UUID id) {
    return stored(OUTBOX_EVENTS.PAYLOAD, id).data();
  }

  /** One stored column of event {@code id}. */
  <T> T stored(Field<T> column, UUID id) {
    return mapped
        .select(column)
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.ID.eq(id))
        .fetchSingle()
        .value1();
  }

  /**
   * Runs {@code call} inside a transaction that also writes business rows before and after it, and
   * checks that it throws {@code type} with every one of {@code parts}, that no event was written,
   * and that the transaction still commits its business rows.
   */
  void rejects(Class<? extends RuntimeException> type, Consumer<DSLContext> call, String... parts) {
    String before = "order-" + UUID.randomUUID();
    String after = before + "-after";
    int events = eventCount();
    dsl.transaction(
        tx -> {
          tx.dsl().insertInto(orders).set(orderId, before).execute();
          assertThatThrownBy(() -> call.accept(tx.dsl()))
              .isInstanceOf(type)
              .satisfies(
                  e -> {
                    for (String part : parts) {
                      assertThat(e).hasMessageContaining(part);
                    }
                  });
          tx.dsl().insertInto(orders).set(orderId, after).execute();
        });
    assertThat(orderIds()).contains(before, after);
    assertThat(eventCount()).as("events written").isEqualTo(events);
  }
}
