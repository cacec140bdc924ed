package dev.txoutbox.itcompat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.ZipFile;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * One embedded PostgreSQL of a given major version, with {@code wal_level=logical}, from the zonky
 * binaries jar the build copied to {@code <compat.binaries>/postgres-<major>.jar}. Created
 * unstarted (the suite lists every version first), started once for its version's tests, closed
 * after them by JUnit. Not thread-safe while starting or closing; its data source is.
 */
final class PostgresServer implements AutoCloseable {

  /** Where the build copies the binaries jars: a system property set by the module's pom. */
  static final String BINARIES_PROPERTY = "compat.binaries";

  /** The major versions to run on, comma-separated: a system property set by the module's pom. */
  static final String MAJORS_PROPERTY = "compat.postgres";

  /** The one entry of each zonky binaries jar: the server's files, xz-compressed tar. */
  private static final String ARCHIVE = "postgres-linux-x86_64.txz";

  private static final int POOL_SIZE = 10;

  private final int major;
  private final Path jar;
  private final AtomicInteger schemas = new AtomicInteger();
  private EmbeddedPostgres server;
  private HikariDataSource dataSource;

  private PostgresServer(int major, Path jar) {
    this.major = major;
    this.jar = jar;
  }

  /** The servers {@value #MAJORS_PROPERTY} names, in its order, none started. */
  static List<PostgresServer> configured() {
    String majors = System.getProperty(MAJORS_PROPERTY, "");
    String binaries = System.getProperty(BINARIES_PROPERTY);
    if (majors.isBlank() || binaries == null) {
      throw new IllegalStateException(
          MAJORS_PROPERTY
              + " and "
              + BINARIES_PROPERTY
              + " must be set (it-compat's pom sets both) but were "
              + majors
              + " and "
              + binaries);
    }
    return Arrays.stream(majors.split(","))
        .map(String::trim)
        .map(Integer::parseInt)
        .map(m -> new PostgresServer(m, Path.of(binaries, "postgres-" + m + ".jar")))
        .toList();
  }

  int major() {
    return major;
  }

  /** The port the started server listens on, on loopback. */
  int port() {
    return server.getPort();
  }

  /** Starts the server and its pool. */
  void start() throws IOException {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "the binaries of PostgreSQL " + major + " must be at " + jar + " but are not");
    }
    byte[] archive = archive();
    server =
        EmbeddedPostgres.builder()
            .setPgBinaryResolver((system, machine) -> new ByteArrayInputStream(archive))
            .setServerConfig("wal_level", "logical")
            .setServerConfig("max_replication_slots", "8")
            .setServerConfig("max_wal_senders", "8")
            .start();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl());
    config.setUsername("postgres");
    config.setMaximumPoolSize(POOL_SIZE);
    config.setPoolName("compat-pg" + major);
    dataSource = new HikariDataSource(config);
  }

  private byte[] archive() throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile());
        InputStream in = zip.getInputStream(zip.getEntry(ARCHIVE))) {
      return in.readAllBytes();
    }
  }

  DataSource dataSource() {
    return dataSource;
  }

  DSLContext dsl() {
    return DSL.using(dataSource, SQLDialect.POSTGRES);
  }

  String jdbcUrl() {
    return server.getJdbcUrl("postgres", "postgres");
  }

  /**
   * The credentials of {@link #jdbcUrl()}, as the WAL relay's replication connection takes them.
   */
  static Properties credentials() {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    return p;
  }

  /** The server's own version number, such as 130023 for 13.23. */
  int versionNum() {
    return Integer.parseInt(dsl().fetchSingle("SHOW server_version_num").get(0, String.class));
  }

  /**
   * A fresh schema of this server, with the outbox tables migrated into it, named {@code name_N}.
   */
  OutboxTables freshOutbox(String name) {
    OutboxTables tables = OutboxTables.in(name + "_" + schemas.incrementAndGet());
    OutboxSchema.migrate(dataSource, tables);
    return tables;
  }

  @Override
  public void close() throws IOException {
    try {
      if (dataSource != null) {
        dataSource.close();
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  @Override
  public String toString() {
    return "PostgreSQL " + major;
  }
}
