package dev.txoutbox.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server of the benchmark's own, for what needs {@code wal_level=logical}: a cluster
 * made by the Debian binaries' {@code initdb} in a temporary directory, started by {@code pg_ctl}
 * on a free port of 127.0.0.1, stopped and deleted by {@link #close()} or, if the JVM ends first,
 * by a shutdown hook. The shared server is never reconfigured. Run as root, the binaries run as the
 * {@code postgres} user ({@code initdb} refuses root). Not thread-safe.
 */
final class LogicalServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LogicalServer.class);

  /** The Debian binaries: {@code OUTBOX_BENCH_PG_BIN}, or the newest under /usr/lib/postgresql. */
  private static final String PG_BIN_ENV = "OUTBOX_BENCH_PG_BIN";

  private final Path bin;
  private final Path dir;
  private final int port;
  private final boolean asPostgres;
  private final Thread hook;
  private boolean stopped;

  private LogicalServer(Path bin, Path dir, int port, boolean asPostgres) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
    this.asPostgres = asPostgres;
    this.hook = new Thread(this::stop, "logical-server-stop");
  }

  /**
   * Creates and starts a cluster with {@code settings} (names and values as in {@code
   * postgresql.conf}), plus {@code wal_level=logical} and room for replication slots and WAL
   * senders; trust authentication on 127.0.0.1 only, user {@code postgres}.
   */
  static LogicalServer start(Map<String, String> settings)
      throws IOException, InterruptedException {
    Path bin = binaries();
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory("txoutbox-logical-");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    LogicalServer server = new LogicalServer(bin, dir, port, root);
    Runtime.getRuntime().addShutdownHook(server.hook);
    try {
      if (root) {
        server.run(List.of("chown", "postgres:", dir.toString()), false);
      }
      Path data = dir.resolve("data");
      server.run(
          List.of(
              bin.resolve("initdb").toString(),
              "-D",
              data.toString(),
              "-U",
              "postgres",
              "--auth=trust",
              "--encoding=UTF8",
              "--locale=C.UTF-8"),
          root);
      Map<String, String> conf = new LinkedHashMap<>(settings);
      conf.put("wal_level", "logical");
      conf.put("max_replication_slots", "8");
      conf.put("max_wal_senders", "8");
      conf.put("listen_addresses", "'127.0.0.1'");
      conf.put("port", Integer.toString(port));
      conf.put("unix_socket_directories", "'" + dir + "'");
      StringBuilder extra = new StringBuilder("\n# dev.txoutbox.bench.LogicalServer\n");
      conf.forEach((k, v) -> extra.append(k).append(" = ").append(v).append('\n'));
      // Appending keeps the file's owner, so this works as root for the postgres user too.
      Files.writeString(
          data.resolve("postgresql.conf"), extra, java.nio.file.StandardOpenOption.APPEND);
      server.run(
          List.of(
              bin.resolve("pg_ctl").toString(),
              "-D",
              data.toString(),
              "-l",
              dir.resolve("server.log").toString(),
              "-w",
              "start"),
          root);
    } catch (IOException | InterruptedException | RuntimeException e) {
      server.close();
      throw e;
    }
    log.info("logical-replication server started on port {} in {}", port, dir);
    return server;
  }

  /** The JDBC URL of {@code database} on this server. */
  String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** The settings quoted as {@code postgresql.conf} wants them: a value that is not a number. */
  static Map<String, String> quoted(Map<String, String> settings) {
    Map<String, String> out = new LinkedHashMap<>();
    settings.forEach((k, v) -> out.put(k, "'" + v.replace("'", "''") + "'"));
    return out;
  }

  private static Path binaries() throws IOException {
    String env = System.getenv(PG_BIN_ENV);
    if (env != null) {
      return Path.of(env);
    }
    Path root = Path.of("/usr/lib/postgresql");
    try (Stream<Path> versions = Files.list(root)) {
      return versions
          .filter(p -> Files.isExecutable(p.resolve("bin/initdb")))
          .max(Comparator.comparing(p -> Integer.parseInt(p.getFileName().toString())))
          .map(p -> p.resolve("bin"))
          .orElseThrow(
              () ->
                  new IOException("no PostgreSQL binaries under " + root + "; set " + PG_BIN_ENV));
    }
  }

  private void run(List<String> command, boolean postgresUser)
      throws IOException, InterruptedException {
    List<String> full = new ArrayList<>();
    if (postgresUser) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", full) + " failed:\n" + out);
    }
  }

  /** Stops the server (fast shutdown) and deletes its directory; idempotent. */
  private synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    try {
      if (Files.exists(dir.resolve("data/postmaster.pid"))) {
        run(
            List.of(
                bin.resolve("pg_ctl").toString(),
                "-D",
                dir.resolve("data").toString(),
                "-m",
                "fast",
                "-w",
                "stop"),
            asPostgres);
      }
    } catch (IOException e) {
      log.warn("stopping the logical-replication server failed: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(LogicalServer::delete);
    } catch (IOException | UncheckedIOException e) {
      log.warn("deleting {} failed: {}", dir, e.toString());
    }
  }

  private static void delete(Path p) {
    try {
      Files.delete(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs, or ran, stop() itself
    }
  }
}
