package dev.txoutbox.itcompat;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A primary and its streaming standby, two PostgreSQL servers of this machine's Debian packages
 * ({@code /usr/lib/postgresql/<major>/bin}) in a temporary directory, on free loopback ports, trust
 * authentication: the primary made with {@code initdb}, the standby with {@code pg_basebackup -R}.
 * A test may stop the primary and promote the standby. Run as the {@code postgres} user when the
 * JVM is root (PostgreSQL refuses root). Not thread-safe.
 */
final class StandbyPair implements AutoCloseable {

  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(60);

  private final Path dir;
  private final Path bin;
  private final int primaryPort;
  private final int standbyPort;
  private final List<Path> running = new ArrayList<>();

  private StandbyPair(Path dir, Path bin, int primaryPort, int standbyPort) {
    this.dir = dir;
    this.bin = bin;
    this.primaryPort = primaryPort;
    this.standbyPort = standbyPort;
  }

  /**
   * Creates and starts both servers, and waits until the standby streams from the primary.
   *
   * @throws IllegalStateException if no Debian PostgreSQL binaries are installed, or a step fails
   */
  static StandbyPair start() throws IOException, InterruptedException, SQLException {
    Path bin;
    try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      bin =
          versions
              .map(v -> v.resolve("bin"))
              .filter(b -> Files.isExecutable(b.resolve("pg_basebackup")))
              .max(Comparator.naturalOrder())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "PostgreSQL's server binaries must be installed under"
                              + " /usr/lib/postgresql/<major>/bin but are not"));
    }
    Path dir = Files.createTempDirectory("standby-pair-");
    if (root()) {
      own(dir);
    }
    StandbyPair pair = new StandbyPair(dir, bin, freePort(), freePort());
    try {
      pair.run("initdb", "-D", pair.data("primary"), "-U", "postgres", "--auth=trust", "-N");
      pair.startServer("primary", pair.primaryPort);
      pair.run(
          "pg_basebackup",
          "-h",
          "127.0.0.1",
          "-p",
          String.valueOf(pair.primaryPort),
          "-U",
          "postgres",
          "-D",
          pair.data("standby"),
          "-R",
          "-X",
          "stream");
      pair.startServer("standby", pair.standbyPort);
      await()
          .atMost(STEP_TIMEOUT)
          .until(
              () ->
                  pair.query(
                          pair.primaryPort,
                          "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")
                      .equals("1"));
      return pair;
    } catch (IOException | InterruptedException | RuntimeException e) {
      pair.close();
      throw e;
    }
  }

  int primaryPort() {
    return primaryPort;
  }

  int standbyPort() {
    return standbyPort;
  }

  /** A direct JDBC URL of the {@code postgres} database on {@code port}. */
  static String url(int port) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  /** Waits until the standby has replayed everything the primary has written so far. */
  void awaitStandbyCaughtUp() throws SQLException {
    String lsn = query(primaryPort, "SELECT pg_current_wal_lsn()::text");
    await()
        .atMost(STEP_TIMEOUT)
        .until(
            () ->
                query(standbyPort, "SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn")
                    .equals("t"));
  }

  /** Stops the primary at once, as a crash would ({@code pg_ctl stop -m immediate}). */
  void stopPrimary() throws IOException, InterruptedException {
    run("pg_ctl", "-D", data("primary"), "stop", "-m", "immediate", "-w");
    running.remove(Path.of(data("primary")));
  }

  /** Promotes the standby and waits until it accepts writes. */
  void promoteStandby() throws IOException, InterruptedException {
    run("pg_ctl", "-D", data("standby"), "promote", "-w");
  }

  /** Stops whatever still runs and deletes the directory. */
  @Override
  public void close() throws IOException, InterruptedException {
    try {
      for (Path data : List.copyOf(running)) {
        run("pg_ctl", "-D", data.toString(), "stop", "-m", "immediate", "-w");
      }
      running.clear();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private String data(String name) {
    return dir.resolve(name).toString();
  }

  private void startServer(String name, int port) throws IOException, InterruptedException {
    run(
        "pg_ctl",
        "-D",
        data(name),
        "-l",
        dir.resolve(name + ".log").toString(),
        "-w",
        "-o",
        "-p "
            + port
            + " -c listen_addresses=127.0.0.1 -c unix_socket_directories="
            + dir
            + " -c fsync=off -c shared_buffers=16MB",
        "start");
    running.add(Path.of(data(name)));
  }

  /**
   * Runs one of the server's programs, as the postgres user when root; fails on a non-zero exit.
   */
  private void run(String program, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    if (root()) {
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.add(bin.resolve(program).toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(program + " must succeed but did not: " + out);
    }
  }

  private static String query(int port, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url(port), "postgres", "");
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getString(1);
    }
  }

  private static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static void own(Path dir) throws IOException {
    UserPrincipal postgres =
        dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
    Files.setOwner(dir, postgres);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
