package dev.txoutbox.itcompat;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's {@code pgbouncer} as a child process on a free loopback port, in front of a PostgreSQL
 * server: its own ini, auth file, log file and pid file in a temporary directory, {@code
 * auth_type=trust} (the user must still be listed in the auth file). Every database name is
 * forwarded to the server as is ({@code * = host=… port=…}) with the default pool mode; {@link
 * Builder#alias} adds a name for one database with its own pool mode. Started as root, it drops to
 * the {@code postgres} user, since PgBouncer refuses to run as root. Not thread-safe.
 */
final class PgBouncer implements AutoCloseable {

  /** Where Debian's package installs it. */
  static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

  private static final Duration START_TIMEOUT = Duration.ofSeconds(15);

  /** PgBouncer's {@code pool_mode}. */
  enum PoolMode {
    /** A server connection per client connection, for the client's whole session. */
    SESSION,
    /**
     * A server connection per transaction; LISTEN, session settings and prepared statements do not
     * follow the client.
     */
    TRANSACTION;

    String ini() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Path dir;
  private final int port;
  private final Process process;

  private PgBouncer(Path dir, int port, Process process) {
    this.dir = dir;
    this.port = port;
    this.process = process;
  }

  /** Starts configuring a PgBouncer in front of the server at 127.0.0.1:{@code serverPort}. */
  static Builder in(PoolMode mode, int serverPort) {
    return new Builder(mode, serverPort);
  }

  /** The installed version, such as {@code 1.18.0}, from {@code pgbouncer --version}. */
  static String version() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(BINARY.toString(), "--version").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    String first = out.lines().findFirst().orElse("");
    return first.replace("PgBouncer", "").trim();
  }

  /** The port clients connect to. */
  int port() {
    return port;
  }

  /** A JDBC URL of {@code database} through this PgBouncer, with {@code parameters} appended. */
  String url(String database, String parameters) {
    return "jdbc:postgresql://127.0.0.1:"
        + port
        + "/"
        + database
        + (parameters.isEmpty() ? "" : "?" + parameters);
  }

  /** The log file's text so far. */
  String log() throws IOException {
    Path log = dir.resolve("pgbouncer.log");
    return Files.exists(log) ? Files.readString(log) : "";
  }

  /** Stops the process (SIGTERM, then SIGKILL after 10 s) and deletes its directory. */
  @Override
  public void close() throws IOException {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** Configures a {@link PgBouncer}. Not thread-safe. */
  static final class Builder {
    private final PoolMode mode;
    private final int serverPort;
    private int poolSize = 20;
    private final Map<String, String> aliases = new LinkedHashMap<>();
    private final List<String> settings = new ArrayList<>();

    private Builder(PoolMode mode, int serverPort) {
      this.mode = mode;
      this.serverPort = serverPort;
    }

    /** {@code default_pool_size}: server connections per database and user. Defaults to 20. */
    Builder poolSize(int poolSize) {
      this.poolSize = poolSize;
      return this;
    }

    /** Adds the name {@code alias} for the server's {@code database}, pooled in {@code mode}. */
    Builder alias(String alias, String database, PoolMode mode) {
      aliases.put(
          alias,
          "host=127.0.0.1 port=" + serverPort + " dbname=" + database + " pool_mode=" + mode.ini());
      return this;
    }

    /** Adds a line to the {@code [pgbouncer]} section, such as {@code server_reset_query = }. */
    Builder setting(String line) {
      settings.add(line);
      return this;
    }

    /**
     * Writes the files, starts the process and waits until it accepts connections.
     *
     * @throws IllegalStateException if {@link #BINARY} is missing or the process does not start
     */
    PgBouncer start() throws IOException {
      if (!Files.isExecutable(BINARY)) {
        throw new IllegalStateException(
            "pgbouncer must be installed at " + BINARY + " (apt-get install pgbouncer) but is not");
      }
      Path dir =
          Files.createTempDirectory(
              "pgbouncer-",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
      int port = freePort();
      boolean root = "root".equals(System.getProperty("user.name"));
      StringBuilder ini = new StringBuilder("[databases]\n");
      aliases.forEach(
          (alias, target) -> ini.append(alias).append(" = ").append(target).append('\n'));
      ini.append("* = host=127.0.0.1 port=").append(serverPort).append('\n');
      ini.append("[pgbouncer]\n")
          .append("listen_addr = 127.0.0.1\n")
          .append("listen_port = ")
          .append(port)
          .append('\n')
          .append("unix_socket_dir =\n")
          .append("auth_type = trust\n")
          .append("auth_file = ")
          .append(dir.resolve("users.txt"))
          .append('\n')
          .append("admin_users = postgres\n")
          .append("pool_mode = ")
          .append(mode.ini())
          .append('\n')
          .append("default_pool_size = ")
          .append(poolSize)
          .append('\n')
          .append("logfile = ")
          .append(dir.resolve("pgbouncer.log"))
          .append('\n')
          .append("pidfile = ")
          .append(dir.resolve("pgbouncer.pid"))
          .append('\n');
      if (root) {
        ini.append("user = postgres\n");
      }
      settings.forEach(s -> ini.append(s).append('\n'));
      Files.writeString(dir.resolve("pgbouncer.ini"), ini);
      Files.writeString(dir.resolve("users.txt"), "\"postgres\" \"\"\n");
      if (root) {
        UserPrincipal postgres =
            dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
        try (Stream<Path> files = Files.walk(dir)) {
          for (Path p : files.toList()) {
            Files.setOwner(p, postgres);
          }
        }
      }
      Process process =
          new ProcessBuilder(BINARY.toString(), dir.resolve("pgbouncer.ini").toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("stdout.txt").toFile())
              .start();
      PgBouncer bouncer = new PgBouncer(dir, port, process);
      await()
          .atMost(START_TIMEOUT)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> !process.isAlive() || accepts(port));
      if (!process.isAlive()) {
        String why = bouncer.log() + Files.readString(dir.resolve("stdout.txt"));
        bouncer.close();
        throw new IllegalStateException(
            "pgbouncer must listen on 127.0.0.1:" + port + " but exited: " + why);
      }
      return bouncer;
    }

    private static boolean accepts(int port) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
        return true;
      } catch (IOException e) {
        return false;
      }
    }

    private static int freePort() throws IOException {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      }
    }
  }
}
