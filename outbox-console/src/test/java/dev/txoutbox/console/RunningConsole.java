package dev.txoutbox.console;

import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.OutboxTestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A console on any free loopback port over a test's outbox, optionally with an admin secret. */
final class RunningConsole implements AutoCloseable {

  static final String SECRET = "s3cret-token-for-console-tests";

  final OutboxConsole console;
  final ConsoleServer server;
  final ConsoleClient client;

  private RunningConsole(OutboxConsole console, ConsoleServer server) {
    this.console = console;
    this.server = server;
    this.client = new ConsoleClient(server.uri());
  }

  /** A console with the admin credential {@link #SECRET}, read from a file. */
  static RunningConsole withCredential(OutboxTestDatabase db, Path dir) {
    try {
      Path file = Files.writeString(dir.resolve("console-secret"), SECRET + "\n");
      return start(builder(db).adminCredential(AdminCredential.fromFile(file)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A read-only console. */
  static RunningConsole readOnly(OutboxTestDatabase db) {
    return start(builder(db));
  }

  static OutboxConsole.Builder builder(OutboxTestDatabase db) {
    return OutboxConsole.builder()
        .outbox("main", db.dataSource(), OutboxTables.in(db.schema()))
        // Each test reads the counts it has just seeded.
        .countsMaxAge(java.time.Duration.ZERO)
        .port(0);
  }

  static RunningConsole start(OutboxConsole.Builder builder) {
    OutboxConsole console = builder.build();
    return new RunningConsole(console, console.start());
  }

  @Override
  public void close() {
    server.close();
  }
}
