package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.conf.StatementType;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The writer renders its INSERT once, yet runs it through the caller's {@code DSLContext}: the
 * caller's execute listeners (loggers, tracers, Spring's exception translator) see it, and the
 * caller's settings apply to it.
 */
class OutboxWriterCallersContextTest {

  @RegisterExtension static final WriterFixture fx = new WriterFixture("writer_ctx");

  /** The SQL of each statement the caller's context ran, and the exceptions it saw. */
  private final List<String> executed = new CopyOnWriteArrayList<>();

  private final List<Exception> failures = new CopyOnWriteArrayList<>();

  private DSLContext listened(Settings settings) {
    ExecuteListener listener =
        new ExecuteListener() {
          @Override
          public void executeStart(ExecuteContext ctx) {
            executed.add(ctx.sql());
          }

          @Override
          public void exception(ExecuteContext ctx) {
            failures.add(ctx.exception());
          }
        };
    return DSL.using(
        new DefaultConfiguration()
            .set(fx.db.dataSource())
            .set(SQLDialect.POSTGRES)
            .set(settings)
            .set(listener));
  }

  @Test
  void theCallersExecuteListenersSeeTheOneInsertOfEachCall() {
    Outbox outbox = fx.writer().build();
    DSLContext caller = listened(new Settings());

    caller.transaction(
        tx -> {
          outbox.record(tx.dsl(), "order", "o-1", "order.created", "{}");
          outbox.recordAll(
              tx.dsl(),
              List.of(
                  OutboxEvent.of("order", "o-2", "order.created", "{}"),
                  OutboxEvent.of("order", "o-3", "order.created", "{}")));
        });

    String insert = "insert into \"" + fx.db.schema() + "\".\"outbox_events\" (\"id\", ";
    assertThat(executed).hasSize(2).allSatisfy(sql -> assertThat(sql).startsWith(insert));
    assertThat(executed.get(1)).containsOnlyOnce("), (");
    assertThat(fx.eventCount()).isEqualTo(3);
  }

  @Test
  void throughTheCallersListenersEveryValueIsStoredAsWithout() {
    Outbox outbox = fx.writer().build();
    java.time.Instant notBefore = java.time.Instant.parse("2030-01-02T03:04:05.123456Z");
    OutboxEvent event =
        OutboxEvent.builder("order", "o-1", "order.created")
            .payload("{\"b\":[1,2.50],\"a\":\"é\"}")
            .header("traceparent", "00-1")
            .notBefore(notBefore)
            .build();

    UUID listenedId =
        listened(new Settings()).transactionResult(tx -> outbox.record(tx.dsl(), event));
    UUID directId = fx.dsl.transactionResult(tx -> outbox.record(tx.dsl(), event));

    assertThat(executed).hasSize(1);
    for (var column :
        List.of(
            OUTBOX_EVENTS.AGGREGATE_TYPE,
            OUTBOX_EVENTS.AGGREGATE_ID,
            OUTBOX_EVENTS.EVENT_TYPE,
            OUTBOX_EVENTS.PAYLOAD,
            OUTBOX_EVENTS.HEADERS,
            OUTBOX_EVENTS.RETRY_AFTER)) {
      assertThat((Object) fx.stored(column, listenedId))
          .as(column.getName())
          .isNotNull()
          .isEqualTo(fx.stored(column, directId));
    }
    assertThat(fx.stored(OUTBOX_EVENTS.RETRY_AFTER, directId).toInstant()).isEqualTo(notBefore);
    assertThat(fx.payload(directId)).isEqualTo("{\"a\": \"é\", \"b\": [1, 2.50]}");
  }

  @Test
  void withoutListenersAFailingInsertIsADataAccessExceptionNamingTheStatement() {
    Outbox outbox = Outbox.builder().schema("no_such_schema").build();

    assertThatThrownBy(
            () ->
                fx.dsl.transaction(
                    tx -> outbox.record(tx.dsl(), "order", "o-1", "order.created", "{}")))
        .isInstanceOf(DataAccessException.class)
        .hasMessageContaining("SQL [insert into \"no_such_schema\".\"outbox_events\"")
        .hasMessageContaining("does not exist")
        .satisfies(e -> assertThat(((DataAccessException) e).sqlState()).isEqualTo("42P01"));
  }

  @Test
  void theCallersStaticStatementSettingInlinesTheValuesAndTheyAreStoredUnchanged() {
    Outbox outbox = fx.writer().build();
    DSLContext caller = listened(new Settings().withStatementType(StatementType.STATIC_STATEMENT));
    String payload = "{\"note\":\"it's ? and $1 and {0}\",\"n\":1}";
    java.time.Instant notBefore = java.time.Instant.parse("2030-01-02T03:04:05.123456Z");

    UUID id =
        caller.transactionResult(
            tx ->
                outbox.record(
                    tx.dsl(),
                    OutboxEvent.builder("order", "o'1", "order.created")
                        .payload(payload)
                        .header("quote", "a'b?")
                        .notBefore(notBefore)
                        .build()));

    assertThat(executed).singleElement().asString().contains("'o''1'").doesNotContain("(?");
    assertThat(fx.stored(OUTBOX_EVENTS.AGGREGATE_ID, id)).isEqualTo("o'1");
    assertThat(fx.payload(id)).isEqualTo("{\"n\": 1, \"note\": \"it's ? and $1 and {0}\"}");
    assertThat(fx.stored(OUTBOX_EVENTS.HEADERS, id).data()).isEqualTo("{\"quote\": \"a'b?\"}");
    assertThat(fx.stored(OUTBOX_EVENTS.RETRY_AFTER, id).toInstant()).isEqualTo(notBefore);
  }

  @Test
  void aFailingInsertIsADataAccessExceptionThatTheCallersListenersSee() {
    Outbox outbox = Outbox.builder().schema("no_such_schema").build();
    DSLContext caller = listened(new Settings());

    assertThatThrownBy(
            () ->
                caller.transaction(
                    tx -> outbox.record(tx.dsl(), "order", "o-1", "order.created", "{}")))
        .isInstanceOf(DataAccessException.class)
        .hasMessageContaining("no_such_schema");
    assertThat(failures).singleElement().asString().contains("no_such_schema");
  }
}
