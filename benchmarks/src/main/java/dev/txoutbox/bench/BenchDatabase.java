package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** The benchmark's database: a pool, the outbox schema, and seeding of pending events. */
final class BenchDatabase implements AutoCloseable {

  static final String SCHEMA = "bench";

  private final String url;
  private final HikariDataSource pool;
  private final DSLContext dsl;
  private final Outbox outbox;
  private final CpuMeter cpu;

  BenchDatabase(String url, String user, String password) {
    this.url = url;
    createDatabaseIfMissing(url, user, password);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(8);
    config.setPoolName("bench");
    pool = new HikariDataSource(config);
    OutboxSchema.migrate(pool, SCHEMA);
    OutboxSchema.migrateOrderingIndex(pool, SCHEMA);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    outbox = Outbox.builder().schema(SCHEMA).build();
    cpu = new CpuMeter(dsl);
  }

  /** CPU time of this JVM and of the database's backends. */
  CpuMeter cpu() {
    return cpu;
  }

  DataSource dataSource() {
    return pool;
  }

  String url() {
    return url;
  }

  String serverVersion() {
    return dsl.fetchValue(
        DSL.function("current_setting", String.class, DSL.inline("server_version")));
  }

  /** Empties the outbox and writes {@code count} pending events through the writer. */
  void seed(int count, int aggregates) {
    dsl.truncate(DSL.table(DSL.name(SCHEMA, "outbox_events"))).execute();
    String payload =
        "{\"orderId\":\"%s\",\"customer\":\"c-42\",\"total\":{\"amount\":\"129.90\",\"currency\":\"EUR\"},"
            + "\"lines\":[{\"sku\":\"A-1\",\"qty\":2},{\"sku\":\"B-7\",\"qty\":1}]}";
    int chunk = 5_000;
    for (int from = 0; from < count; from += chunk) {
      List<OutboxEvent> events = new ArrayList<>(chunk);
      for (int i = from; i < Math.min(count, from + chunk); i++) {
        String aggregateId = "order-" + (i % aggregates);
        events.add(
            OutboxEvent.builder("order", aggregateId, "order.created")
                .payload(String.format(payload, aggregateId))
                .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .build());
      }
      dsl.transaction(tx -> outbox.recordAll(tx.dsl(), events));
    }
    // VACUUM is a utility command jOOQ does not model.
    execute("VACUUM ANALYZE " + SCHEMA + ".outbox_events");
  }

  private void execute(String sql) {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static void createDatabaseIfMissing(String url, String user, String password) {
    try (Connection c = DriverManager.getConnection(url, user, password)) {
      return;
    } catch (SQLException missing) {
      // create it below
    }
    String database = url.substring(url.lastIndexOf('/') + 1).replaceAll("\\?.*", "");
    String admin = url.substring(0, url.lastIndexOf('/') + 1) + "postgres";
    try (Connection c = DriverManager.getConnection(admin, user, password);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + database, e);
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
