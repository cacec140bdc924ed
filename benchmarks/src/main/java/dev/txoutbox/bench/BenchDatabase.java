package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.schema.OutboxSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
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
    this(url, user, password, true);
  }

  /**
   * The database at {@code url}, as {@link #user()}, whose outbox a parent JVM already migrated and
   * seeded: nothing is created or migrated, so a child JVM measuring a fresh relay loads no Flyway
   * and runs no statement of its own before the relay starts but {@link CpuMeter}'s.
   */
  static BenchDatabase existing(String url) {
    return new BenchDatabase(url, user(), password(), false);
  }

  private BenchDatabase(String url, String user, String password, boolean migrate) {
    this.url = url;
    if (migrate) {
      createDatabaseIfMissing(url, user, password);
    }
    pool = pool(url, user, password, 8, "bench");
    if (migrate) {
      OutboxSchema.migrate(pool, SCHEMA);
      OutboxSchema.migrateOrderingIndex(pool, SCHEMA);
    }
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    cpu = new CpuMeter(dsl);
  }

  /** A pool of {@code size} connections to {@code url} as {@link #user()}, named {@code name}. */
  static HikariDataSource pool(String url, int size, String name) {
    return pool(url, user(), password(), size, name);
  }

  /** A pool of {@code size} connections to {@code url} as {@code user}, named {@code name}. */
  static HikariDataSource pool(String url, String user, String password, int size, String name) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    config.setPoolName(name);
    return new HikariDataSource(config);
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
   * Empties the outbox and inserts {@code count} pending events ({@link SeedEvents}), the n-th of
   * aggregate {@code order-(n % aggregates)}, then {@code VACUUM ANALYZE}.
   */
  void seed(int count, int aggregates) {
    seed(count, aggregates, () -> {});
  }

  /** {@link #seed(int, int)}, running {@code afterInsert} between the inserts and the vacuum. */
  void seed(int count, int aggregates, Runnable afterInsert) {
    dsl.truncate(DSL.table(DSL.name(SCHEMA, "outbox_events"))).execute();
    SeedEvents.insert(dsl, SCHEMA, count, aggregates, null, null);
    afterInsert.run();
    vacuum();
  }

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
