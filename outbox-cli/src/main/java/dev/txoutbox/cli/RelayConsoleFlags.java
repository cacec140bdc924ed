package dev.txoutbox.cli;

import dev.txoutbox.console.OutboxConsole;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * {@code txoutbox relay}'s flags for the operations console served beside the relay, on a port of
 * its own: {@code --console-port} turns it on. The same options as {@code txoutbox console}'s, each
 * named with {@code --console-}, checked by {@link ConsoleSetup}. Not thread-safe: picocli fills
 * it, then the relay reads it once.
 */
final class RelayConsoleFlags {

  @Option(
      names = "--console-port",
      paramLabel = "PORT",
      description =
          "Serve the operations console beside the relay on PORT (0 picks a free one), read-only"
              + " unless an admin secret is named. Default: no console.")
  @Nullable Integer port;

  @Option(
      names = "--console-bind",
      paramLabel = "ADDRESS",
      description =
          "The console's address, apart from --metrics-host. Default: "
              + OutboxConsole.DEFAULT_BIND_ADDRESS
              + " (this machine only); anything else needs --console-allowed-host and TLS in"
              + " front.")
  @Nullable String bind;

  @Option(
      names = "--console-allowed-host",
      paramLabel = "HOST",
      description =
          "A host name browsers may use to reach the console (repeatable); requests naming another"
              + " Host are refused. Default: localhost, 127.0.0.1, ::1.")
  @Nullable List<String> allowedHosts;

  @Option(
      names = "--console-admin-secret-file",
      paramLabel = "FILE",
      description =
          "A file holding the secret that unlocks the console's requeue and purge (16+"
              + " characters).")
  @Nullable Path secretFile;

  @Option(
      names = "--console-admin-secret-env",
      paramLabel = "VARIABLE",
      description =
          "An environment variable holding the secret that unlocks the console's requeue and"
              + " purge (16+ characters).")
  @Nullable String secretVariable;

  /** Whether any console flag other than {@code --console-port} is given. */
  boolean anyButPort() {
    return bind != null || allowedHosts != null || secretFile != null || secretVariable != null;
  }

  /**
   * The console's builder, every flag checked and the secret read; null without {@code
   * --console-port}.
   *
   * @throws IllegalArgumentException naming the flag at fault: also a console flag given without
   *     {@code --console-port}
   */
  OutboxConsole.@Nullable Builder check() {
    if (port == null) {
      if (anyButPort()) {
        throw new IllegalArgumentException(
            firstGiven() + " applies with --console-port only but --console-port was not given");
      }
      return null;
    }
    return ConsoleSetup.check(
        ConsoleSetup.RELAY, bind, port, allowedHosts, secretFile, secretVariable);
  }

  /** How the start line shows the console: {@code off}, or its address and mode. */
  String describe() {
    if (port == null) {
      return "off";
    }
    return "on "
        + (bind == null ? OutboxConsole.DEFAULT_BIND_ADDRESS : bind)
        + ":"
        + port
        + " ("
        + ConsoleSetup.mode(secretFile, secretVariable)
        + ")";
  }

  private String firstGiven() {
    if (bind != null) {
      return "--console-bind";
    }
    if (allowedHosts != null) {
      return "--console-allowed-host";
    }
    return secretFile != null ? "--console-admin-secret-file" : "--console-admin-secret-env";
  }
}
