package dev.txoutbox.bench;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.schema.OutboxSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/** The benchmark's database: a pool, the outbox schema, and seeding of pending events. */
final class BenchDatabase implements AutoCloseable {

  static final String SCHEMA = "bench";

  private final String url;
  private final HikariDataSource pool;
  private final DSLContext dsl;
  private final CpuMeter cpu;

  /**
   * The database of {@code OUTBOX_BENCH_JDBC_URL} (default {@code txoutbox_bench} on the local
   * server), user {@code OUTBOX_BENCH_DB_USER} (default {@code postgres}), password {@code
   * OUTBOX_BENCH_DB_PASSWORD}.
   */
  static BenchDatabase fromEnvironment() {
    return new BenchDatabase(url("txoutbox_bench"), user(), password());
  }

  /** {@code OUTBOX_BENCH_JDBC_URL}, or {@code database} on the local server. */
  static String url(String database) {
    return System.getenv()
        .getOrDefault("OUTBOX_BENCH_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/" + database);
  }

  static String user() {
    return System.getenv().getOrDefault("OUTBOX_BENCH_DB_USER", "postgres");
  }

  static String password() {
    return System.getenv().getOrDefault("OUTBOX_BENCH_DB_PASSWORD", "");
  }

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
    cpu = new CpuMeter(dsl);
  }

  /** CPU time of this JVM and of the database's backends. */
  CpuMeter cpu() {
    return cpu;
  }

  DSLContext dsl() {
    return dsl;
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

  /**
   * Empties the outbox and inserts {@code count} pending events, the n-th of aggregate {@code
   * order-(n % aggregates)}, each with the same rows the writer makes: a 180-byte JSON payload and
   * a {@code traceparent} header. One {@code INSERT … SELECT} over {@code generate_series} per
   * 100,000 events, so seeding costs little of a run.
   */
  void seed(int count, int aggregates) {
    dsl.truncate(DSL.table(DSL.name(SCHEMA, "outbox_events"))).execute();
    DSLContext mapped =
        DSL.using(dsl.configuration().derive(OutboxSchema.withSchema(null, SCHEMA)));
    Field<Integer> n = DSL.field(DSL.name("g", "n"), Integer.class);
    Field<String> aggregate = DSL.inline("order-").concat(n.mod(aggregates));
    Field<JSONB> payload =
        DSL.inline("{\"orderId\":\"")
            .concat(aggregate)
            .concat(
                DSL.inline(
                    "\",\"customer\":\"c-42\",\"total\":{\"amount\":\"129.90\",\"currency\":\"EUR\"},"
                        + "\"lines\":[{\"sku\":\"A-1\",\"qty\":2},{\"sku\":\"B-7\",\"qty\":1}]}"))
            .cast(SQLDataType.JSONB);
    int chunk = 100_000;
    for (int from = 0; from < count; from += chunk) {
      mapped
          .insertInto(
              OUTBOX_EVENTS,
              OUTBOX_EVENTS.ID,
              OUTBOX_EVENTS.AGGREGATE_TYPE,
              OUTBOX_EVENTS.AGGREGATE_ID,
              OUTBOX_EVENTS.EVENT_TYPE,
              OUTBOX_EVENTS.PAYLOAD,
              OUTBOX_EVENTS.HEADERS)
          .select(
              DSL.select(
                      DSL.function("gen_random_uuid", UUID.class),
                      DSL.inline("order"),
                      aggregate,
                      DSL.inline("order.created"),
                      payload,
                      DSL.inline(JSONB.jsonb("{\"traceparent\":\"" + TRACEPARENT + "\"}")))
                  .from(DSL.generateSeries(from + 1, Math.min(count, from + chunk)).as("g", "n")))
          .execute();
    }
    vacuum();
  }

  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private void vacuum() {
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
