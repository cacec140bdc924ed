package dev.txoutbox.cli;

import dev.txoutbox.console.ConsoleServer;
import dev.txoutbox.console.OutboxConsole;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code txoutbox console}: serves the operations console ({@link OutboxConsole}) on the outbox
 * until SIGTERM or SIGINT. Read-only unless given an admin credential in a file or an environment
 * variable, never as a flag's value (a flag shows in {@code ps}).
 */
@Command(
    name = "console",
    mixinStandardHelpOptions = true,
    description = {
      "Serves the operations console (overview, events, dead letters, the WAL slot) in a browser"
          + " until SIGTERM or SIGINT.",
      "Read-only unless --admin-secret-file or --admin-secret-env names the secret that unlocks"
          + " requeue and purge."
    })
final class ConsoleCommand extends DatabaseCommand {

  private static final Logger log = LoggerFactory.getLogger(ConsoleCommand.class);

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      description =
          "The address to listen on. Default: "
              + OutboxConsole.DEFAULT_BIND_ADDRESS
              + " (this machine only); anything else needs --allowed-host and TLS in front.")
  @Nullable String bind;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "The port; 0 picks a free one. Default: " + OutboxConsole.DEFAULT_PORT + ".")
  @Nullable Integer port;

  @Option(
      names = "--allowed-host",
      paramLabel = "HOST",
      description =
          "A host name browsers may use to reach the console (repeatable); requests naming another"
              + " Host are refused. Default: localhost, 127.0.0.1, ::1.")
  @Nullable List<String> allowedHosts;

  @Option(
      names = "--admin-secret-file",
      paramLabel = "FILE",
      description = "A file holding the secret that unlocks requeue and purge (16+ characters).")
  @Nullable Path secretFile;

  @Option(
      names = "--admin-secret-env",
      paramLabel = "VARIABLE",
      description =
          "An environment variable holding the secret that unlocks requeue and purge (16+"
              + " characters).")
  @Nullable String secretVariable;

  ConsoleCommand(TxoutboxCommand root) {
    super(root);
  }

  @Override
  public Integer call() throws InterruptedException {
    OutboxConsole.Builder checked;
    try {
      checked =
          ConsoleSetup.check(
              ConsoleSetup.CONSOLE_COMMAND, bind, port, allowedHosts, secretFile, secretVariable);
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
    DatabaseTarget target = target();
    OutboxConsole console = ConsoleSetup.build(checked, target.connect(), target.tables());
    root.context().shutdown().arm();
    try (ConsoleServer server = console.start()) {
      log.info(
          "console on {} ({}); stop it with SIGTERM",
          server.uri(),
          ConsoleSetup.mode(secretFile, secretVariable));
      root.context().shutdown().await();
    }
    return ExitCodes.OK;
  }
}
