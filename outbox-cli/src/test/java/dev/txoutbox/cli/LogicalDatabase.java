package dev.txoutbox.cli;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.testing.LogicalServer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * A fresh outbox schema per call on outbox-testing's shared {@link LogicalServer}, the test JVM's
 * embedded PostgreSQL with {@code wal_level=logical} (the shared service's configuration is never
 * touched).
 */
final class LogicalDatabase {

  private static final AtomicInteger SCHEMAS = new AtomicInteger();

  final String schema;
  private final Outbox outbox;

  private LogicalDatabase(String schema) {
    this.schema = schema;
    this.outbox = Outbox.builder().schema(schema).build();
  }

  /** A new schema holding the outbox tables. */
  static LogicalDatabase freshOutbox() {
    LogicalDatabase db = new LogicalDatabase("cli_wal_" + SCHEMAS.incrementAndGet());
    OutboxSchema.migrate(dataSource(), db.schema);
    return db;
  }

  static LogicalServer server() {
    return LogicalServer.shared();
  }

  static DataSource dataSource() {
    return server().dataSource();
  }

  /** The JDBC URL, without credentials (the user is {@code postgres}, trusted). */
  static String jdbcUrl() {
    return server().jdbcUrl();
  }

  /** The CLI's options that reach this outbox. */
  String[] options() {
    return new String[] {"--jdbc-url", jdbcUrl(), "--user", "postgres", "--schema", schema};
  }

  /** Writes {@code count} events, one committed transaction each. */
  List<UUID> write(int count) {
    return write(count, 1);
  }

  /** Writes {@code transactions} committed transactions of {@code perTransaction} events each. */
  List<UUID> write(int transactions, int perTransaction) {
    DSLContext dsl = DSL.using(dataSource(), SQLDialect.POSTGRES);
    List<UUID> ids = new ArrayList<>();
    for (int t = 0; t < transactions; t++) {
      List<OutboxEvent> events = new ArrayList<>();
      for (int i = 0; i < perTransaction; i++) {
        events.add(OutboxEvent.of("order", "o-" + t + "-" + i, "order.created", "{}"));
      }
      dsl.transaction(tx -> ids.addAll(outbox.recordAll(tx.dsl(), events)));
    }
    return ids;
  }

  /**
   * Writes one committed transaction of {@code count} events, adding their ids to {@code ids}, and
   * returns the WAL insert position read inside it after the inserts: its commit comes later, so a
   * slot confirmed at or past that position has confirmed the transaction.
   */
  String writeReturningLsn(int count, List<UUID> ids) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(OutboxEvent.of("order", "o-lsn-" + i, "order.created", "{}"));
    }
    return DSL.using(dataSource(), SQLDialect.POSTGRES)
        .transactionResult(
            tx -> {
              ids.addAll(outbox.recordAll(tx.dsl(), events));
              // A catalog function with no generated model: plain SQL.
              return tx.dsl()
                  .fetchSingle("select pg_current_wal_insert_lsn()::text")
                  .get(0, String.class);
            });
  }

  /** The position {@code lsn} ({@code 16/B374D848}) as one number, to compare two of them. */
  static long lsn(String lsn) {
    int slash = lsn.indexOf('/');
    return (Long.parseLong(lsn.substring(0, slash), 16) << 32)
        | Long.parseLong(lsn.substring(slash + 1), 16);
  }

  // Plain SQL: one condition on the outbox of a schema chosen at run time; the generated classes
  // would need a render mapping per schema and express the condition no better.
  long count(String where) {
    return DSL.using(dataSource(), SQLDialect.POSTGRES)
        .fetchSingle("select count(*) from " + schema + ".outbox_events where " + where)
        .get(0, Long.class);
  }
}
