package dev.txoutbox.internal.relay;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The unordered cycle's statements by id find their rows through the primary key once the cycle has
 * pinned its plans: on an outbox that was never analyzed, and with the plan a server-prepared
 * statement cached while the outbox was small, which the server keeps as the table grows.
 */
class CompletionPlanTest {

  private static final int BATCH = 500;

  private TestDatabase db;
  private DSLContext dsl;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create("completion_plan", 2);
    dsl =
        DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxSchema.withSchema(null, db.schema()));
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void theCompletionsAndTheDeferralProbeThePrimaryKeyOfAnOutboxWithoutStatistics() {
    insert(3_000);
    assertThat(reltuples()).as("the outbox was never analyzed").isEqualTo(-1.0);
    UUID[] ids = newest(BATCH);
    OffsetDateTime now = OffsetDateTime.now();
    dsl.transaction(
        c -> {
          DSLContext tx = c.dsl();
          new BatchStatements().pinPlansById(tx);
          for (CompletionMode mode : CompletionMode.values()) {
            assertPrimaryKey(tx.explain(RelayStore.completion(tx, ids, mode, now)).plan(), mode);
          }
          assertPrimaryKey(
              tx.explain(
                      tx.update(OUTBOX_EVENTS)
                          .set(OUTBOX_EVENTS.RETRY_AFTER, now)
                          .where(OUTBOX_EVENTS.ID.eq(DSL.any(UuidArray.of(ids)))))
                  .plan(),
              "deferral");
        });
  }

  /**
   * A connection that ran the completion on a tiny outbox often enough for the server to keep a
   * generic plan, then sees the outbox grow a hundredfold: with the plans pinned, the completion
   * still probes the primary key.
   */
  @Test
  void aCompletionPlanCachedWhileTheOutboxWasSmallStaysOnThePrimaryKey() throws Exception {
    insert(20);
    String sql =
        dsl.render(
            RelayStore.completion(
                dsl,
                new UUID[] {UUID.randomUUID()},
                CompletionMode.MARK_PROCESSED,
                OffsetDateTime.now()));
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      DSLContext tx = DSL.using(c, SQLDialect.POSTGRES);
      for (int i = 0; i < 12; i++) {
        new BatchStatements().pinPlansById(tx);
        complete(c, sql, randomIds(BATCH));
        c.commit();
      }
      insert(3_000);
      c.commit();
      new BatchStatements().pinPlansById(tx);
      // The server-side statement pgjdbc prepared for the completion, with its cached plan.
      String name = preparedName(c, sql);
      // EXPLAIN EXECUTE is outside jOOQ's DSL; the name is the server's, the id a UUID's text.
      List<String> plan =
          tx.fetch("EXPLAIN EXECUTE \"" + name + "\"(now(), '{" + UUID.randomUUID() + "}')")
              .getValues(0, String.class);
      c.rollback();
      assertPrimaryKey(String.join("\n", plan), "the cached completion");
    }
  }

  /**
   * The relay's own unordered cycles run the pin on the transaction's connection right before each
   * completion, sent with the claim (the last statement of the claim's text): every statement the
   * relay prepares is recorded, per connection, in order.
   */
  @Test
  void theUnorderedCycleRunsThePinRightBeforeItsCompletion() throws Exception {
    insert(250);
    Map<Connection, List<String>> prepared = new ConcurrentHashMap<>();
    DataSource recording = recording(db.dataSource(), prepared);
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(recording)
            .schema(db.schema())
            .publisher(new RecordingPublisher())
            .config(RelayConfig.builder().batchSize(100).build())
            .build();
    assertThat(relay.drain().publishedCount()).isEqualTo(250);
    String pin = dsl.render(RelayStore.pinPlansById());
    int completions = 0;
    for (List<String> statements : prepared.values()) {
      for (int i = 0; i < statements.size(); i++) {
        if (statements.get(i).startsWith("update") && statements.get(i).contains("processed_at")) {
          completions++;
          assertThat(statements.get(i - 1))
              .as("the statement before a completion")
              .startsWith("with \"due\" as (")
              .endsWith(";\n" + pin);
        }
      }
    }
    assertThat(completions).as("completions of 3 batches").isEqualTo(3);
  }

  /** {@code target}, noting each SQL text a connection of it prepares, in {@code prepared}. */
  private static DataSource recording(DataSource target, Map<Connection, List<String>> prepared) {
    return (DataSource)
        Proxy.newProxyInstance(
            CompletionPlanTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(target, method, args);
              if (!(result instanceof Connection c)) {
                return result;
              }
              return Proxy.newProxyInstance(
                  CompletionPlanTest.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (p, m, a) -> {
                    if (m.getName().equals("prepareStatement") && a[0] instanceof String sql) {
                      prepared
                          .computeIfAbsent(c, k -> Collections.synchronizedList(new ArrayList<>()))
                          .add(sql);
                    }
                    return invoke(c, m, a);
                  });
            });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private void assertPrimaryKey(String plan, Object what) {
    assertThat(plan)
        .as("%s: %s", what, plan.replaceAll("'\\{[^}]*}'", "'{…}'"))
        .contains("outbox_events_pkey")
        .doesNotContain("Seq Scan");
  }

  private static void complete(Connection c, String sql, UUID[] ids) throws Exception {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setObject(1, OffsetDateTime.now());
      s.setArray(2, c.createArrayOf("uuid", ids));
      s.executeUpdate();
    }
  }

  /** The name of the server-side statement of {@code sql} on {@code c}'s session. */
  private static String preparedName(Connection c, String sql) throws Exception {
    try (PreparedStatement s =
            c.prepareStatement(
                "select name, statement from pg_prepared_statements where statement like"
                    + " 'update %'");
        ResultSet rs = s.executeQuery()) {
      List<String> names = new ArrayList<>();
      while (rs.next()) {
        names.add(rs.getString(1));
      }
      assertThat(names).as("server-prepared completions").hasSize(1);
      return names.get(0);
    }
  }

  private static UUID[] randomIds(int n) {
    UUID[] ids = new UUID[n];
    for (int i = 0; i < n; i++) {
      ids[i] = UUID.randomUUID();
    }
    return ids;
  }

  private UUID[] newest(int n) {
    return dsl.select(OUTBOX_EVENTS.ID)
        .from(OUTBOX_EVENTS)
        .orderBy(OUTBOX_EVENTS.SEQ.desc())
        .limit(n)
        .fetchArray(OUTBOX_EVENTS.ID);
  }

  private double reltuples() {
    return dsl.resultQuery(
            "SELECT reltuples FROM pg_class WHERE oid = cast({0} as regclass)",
            db.schema() + ".outbox_events")
        .fetchSingle()
        .get(0, Double.class);
  }

  private void insert(int n) {
    // Bulk seeding with generate_series, which the generated model has no statement for.
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload)"
            + " SELECT gen_random_uuid(), 'order', 'o-' || i, 'order.created',"
            + " jsonb_build_object('n', i, 'lines', repeat('x', 120))"
            + " FROM generate_series(1, "
            + n
            + ") AS i");
  }
}
