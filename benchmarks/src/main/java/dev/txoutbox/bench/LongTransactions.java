package dev.txoutbox.bench;

import dev.txoutbox.Outbox;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A long transaction of {@link CommitOrderBenchmark}, started now and then beside the writers: it
 * sleeps {@code length} inside an open transaction, first after one second and then every {@code
 * period}.
 */
final class LongTransactions {

  private static final Logger log = LoggerFactory.getLogger(LongTransactions.class);

  /** What the long transaction holds while it sleeps. */
  enum Kind {
    /** Nothing: no long transaction. */
    NONE("none"),
    /** An xid ({@code pg_current_xact_id()}), touching no table of the benchmark. */
    UNRELATED_XID("unrelated, holds an xid"),
    /** An xid, in another database of the same server ({@code postgres}). */
    OTHER_DATABASE_XID("unrelated, holds an xid, other database"),
    /** A snapshot and no xid: a report reading in REPEATABLE READ. */
    READ_ONLY_SNAPSHOT("read-only report, holds a snapshot"),
    /** An xid and, with the lock, aggregate {@code order-0}'s slot: it wrote one of its events. */
    SAME_AGGREGATE("wrote an event of order-0");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  private final Kind kind;
  private final DataSource dataSource;
  private final String otherDatabaseUrl;
  private final String user;
  private final String password;
  private final Outbox outbox;
  private final String schema;
  private final Duration length;
  private ScheduledExecutorService timer;

  /**
   * @param outbox the writer of the case, for {@link Kind#SAME_AGGREGATE}
   * @param schema the case's schema, whose {@code orders} the report of {@link
   *     Kind#READ_ONLY_SNAPSHOT} reads
   */
  LongTransactions(
      Kind kind,
      DataSource dataSource,
      String url,
      String user,
      String password,
      Outbox outbox,
      String schema,
      Duration length) {
    this.kind = kind;
    this.dataSource = dataSource;
    this.otherDatabaseUrl = url.substring(0, url.lastIndexOf('/') + 1) + "postgres";
    this.user = user;
    this.password = password;
    this.outbox = outbox;
    this.schema = schema;
    this.length = length;
  }

  void start(Duration period) {
    if (kind == Kind.NONE) {
      return;
    }
    timer = Executors.newSingleThreadScheduledExecutor();
    timer.scheduleAtFixedRate(this::runOne, 1_000, period.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Starts no more and waits for a running one to end. */
  void stop() throws InterruptedException {
    if (timer != null) {
      timer.shutdown();
      if (!timer.awaitTermination(length.toSeconds() + 30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("a long transaction did not end");
      }
    }
  }

  private void runOne() {
    try {
      switch (kind) {
        case NONE -> {}
        case UNRELATED_XID ->
            DSL.using(dataSource, SQLDialect.POSTGRES).transaction(tx -> xid(tx.dsl()));
        case OTHER_DATABASE_XID -> {
          Properties properties = new Properties();
          properties.setProperty("user", user);
          properties.setProperty("password", password);
          properties.setProperty("ApplicationName", OutsideXidSampler.APPLICATION_NAME);
          try (Connection c = DriverManager.getConnection(otherDatabaseUrl, properties)) {
            DSL.using(c, SQLDialect.POSTGRES).transaction(tx -> xid(tx.dsl()));
          }
        }
        case READ_ONLY_SNAPSHOT -> readOnlyReport();
        case SAME_AGGREGATE ->
            DSL.using(dataSource, SQLDialect.POSTGRES)
                .transaction(
                    tx -> {
                      outbox.record(
                          tx.dsl(), "order", "order-0", "order.changed", OrderWriters.PAYLOAD);
                      sleep(tx.dsl());
                    });
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("long transaction failed", e);
    }
  }

  private void xid(DSLContext tx) {
    tx.select(DSL.function("pg_current_xact_id", SQLDataType.OTHER)).fetch();
    sleep(tx);
  }

  private void readOnlyReport() throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      c.setAutoCommit(false);
      try {
        DSLContext tx = DSL.using(c, SQLDialect.POSTGRES);
        tx.fetchCount(DSL.table(DSL.name(schema, "orders")));
        sleep(tx);
      } finally {
        c.rollback(); // it wrote nothing
        c.setAutoCommit(true);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      }
    }
  }

  private void sleep(DSLContext tx) {
    tx.select(DSL.function("pg_sleep", SQLDataType.OTHER, DSL.val(length.toMillis() / 1000.0)))
        .fetch();
  }
}
