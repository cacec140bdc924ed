package dev.txoutbox.wal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL 15 cluster of the Debian binaries ({@code /usr/lib/postgresql/15/bin}) with {@code
 * wal_level=logical}, for what differs from the embedded PG14: since 15, {@code pgoutput} sends no
 * empty transaction. Made by {@code initdb} in a temporary directory, started on a free port of
 * 127.0.0.1 with trust authentication, stopped and deleted by {@link #close()}. As root, the
 * binaries run as {@code postgres} ({@code initdb} refuses root), as the benchmarks' server does.
 */
final class Pg15Server implements AutoCloseable {

  static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

  private final Path dir;
  private final int port;
  private final boolean root = "root".equals(System.getProperty("user.name"));

  /** Whether the binaries are installed. */
  static boolean available() {
    return Files.isExecutable(BIN.resolve("initdb"));
  }

  Pg15Server() throws IOException, InterruptedException {
    dir = Files.createTempDirectory("txoutbox-pg15-");
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try {
      if (root) {
        run(List.of("chown", "postgres:", dir.toString()), false);
      }
      Path data = dir.resolve("data");
      run(
          List.of(
              BIN.resolve("initdb").toString(),
              "-D",
              data.toString(),
              "-U",
              "postgres",
              "--auth=trust",
              "--encoding=UTF8",
              "--locale=C.UTF-8"),
          root);
      // Appending keeps the file's owner.
      Files.writeString(
          data.resolve("postgresql.conf"),
          "\nwal_level = logical\nmax_replication_slots = 4\nmax_wal_senders = 4\n"
              + "listen_addresses = '127.0.0.1'\nport = "
              + port
              + "\nunix_socket_directories = '"
              + dir
              + "'\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.APPEND);
      start();
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Stops the server (fast shutdown); {@link #start()} starts it again on the same port. */
  void stop() throws IOException, InterruptedException {
    pgCtl("-m", "fast", "-w", "stop");
  }

  /** Starts the server again after {@link #stop()}. */
  void start() throws IOException, InterruptedException {
    pgCtl("-l", dir.resolve("server.log").toString(), "-w", "start");
  }

  /** {@code pg_ctl -D <data> args}, as postgres when root. */
  private void pgCtl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(BIN.resolve("pg_ctl").toString());
    command.add("-D");
    command.add(dir.resolve("data").toString());
    command.addAll(List.of(args));
    run(command, root);
  }

  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
  }

  DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(jdbcUrl());
    return ds;
  }

  private void run(List<String> command, boolean asPostgres)
      throws IOException, InterruptedException {
    List<String> full = new ArrayList<>();
    if (asPostgres) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", full) + " failed:\n" + out);
    }
  }

  @Override
  public void close() {
    try {
      if (Files.exists(dir.resolve("data/postmaster.pid"))) {
        pgCtl("-m", "immediate", "-w", "stop");
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
}
