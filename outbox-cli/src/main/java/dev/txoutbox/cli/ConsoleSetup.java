package dev.txoutbox.cli;

import dev.txoutbox.RelayOption;
import dev.txoutbox.console.AdminCredential;
import dev.txoutbox.console.ConsoleOptions;
import dev.txoutbox.console.OutboxConsole;
import dev.txoutbox.schema.OutboxTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Builds the operations console from the flags of {@code txoutbox console} or of {@code txoutbox
 * relay --console-port}: one set of checks and one error text for both, each error naming the
 * command's own flag. Read-only unless an admin secret is named, in a file or an environment
 * variable, never as a flag's value (a flag shows in {@code ps}). Stateless.
 */
final class ConsoleSetup {

  /** The flags of one command that set each console option. */
  record Flags(String bind, String port, String allowedHost, String secretFile, String secretEnv) {

    /** The flags' words: each console option named by its flag of this command. */
    RelayOption.Spelling spelling() {
      return OptionFlags.named(
          Map.of(
              ConsoleOptions.BIND_ADDRESS, bind,
              ConsoleOptions.PORT, port,
              ConsoleOptions.ALLOWED_HOST, allowedHost));
    }
  }

  /** {@code txoutbox console}'s flags. */
  static final Flags CONSOLE_COMMAND =
      new Flags("--bind", "--port", "--allowed-host", "--admin-secret-file", "--admin-secret-env");

  /** {@code txoutbox relay}'s flags for the console beside it. */
  static final Flags RELAY =
      new Flags(
          "--console-bind",
          "--console-port",
          "--console-allowed-host",
          "--console-admin-secret-file",
          "--console-admin-secret-env");

  private ConsoleSetup() {}

  /**
   * The console's builder with every flag checked and the secret read, before anything connects;
   * {@link #build} adds the outbox.
   *
   * @throws IllegalArgumentException naming the flag at fault and its limit, the secret never
   */
  static OutboxConsole.Builder check(
      Flags flags,
      @Nullable String bind,
      @Nullable Integer port,
      @Nullable List<String> allowedHosts,
      @Nullable Path secretFile,
      @Nullable String secretVariable) {
    if (secretFile != null && secretVariable != null) {
      throw new IllegalArgumentException(
          flags.secretFile() + " and " + flags.secretEnv() + " must not both be given");
    }
    RelayOption.Spelling words = flags.spelling();
    OutboxConsole.Builder builder =
        OutboxConsole.builder()
            .bindAddress(
                ConsoleOptions.BIND_ADDRESS.check(
                    bind == null ? OutboxConsole.DEFAULT_BIND_ADDRESS : bind, null, words))
            .port(
                ConsoleOptions.PORT.check(
                    port == null ? OutboxConsole.DEFAULT_PORT : port, null, words));
    if (allowedHosts != null) {
      for (String host : allowedHosts) {
        ConsoleOptions.ALLOWED_HOST.check(host, null, words);
      }
      builder.allowedHosts(allowedHosts.toArray(String[]::new));
    }
    AdminCredential credential = credential(flags, secretFile, secretVariable);
    if (credential != null) {
      builder.adminCredential(credential);
    }
    return builder;
  }

  /** The console of {@code builder} on the outbox {@code tables} through {@code dataSource}. */
  static OutboxConsole build(
      OutboxConsole.Builder builder, DataSource dataSource, OutboxTables tables) {
    return builder.outbox("main", dataSource, tables).build();
  }

  /** {@code read-only}, or {@code actions unlocked} when a secret is named. */
  static String mode(@Nullable Path secretFile, @Nullable String secretVariable) {
    return secretFile == null && secretVariable == null ? "read-only" : "actions unlocked";
  }

  /** The admin credential from the file or variable given, or null for a read-only console. */
  private static @Nullable AdminCredential credential(
      Flags flags, @Nullable Path secretFile, @Nullable String secretVariable) {
    try {
      if (secretFile != null) {
        return AdminCredential.fromFile(secretFile);
      }
      if (secretVariable != null) {
        return AdminCredential.fromEnvironment(secretVariable);
      }
      return null;
    } catch (IllegalArgumentException e) {
      // "adminCredential file F must ..." in the words of the flag: "--admin-secret-file F must
      // ..."
      String flag = secretFile != null ? flags.secretFile() : flags.secretEnv();
      String message =
          e.getMessage()
              .replaceFirst(
                  "^adminCredential (file|environment variable) ",
                  Matcher.quoteReplacement(flag + " "));
      throw new IllegalArgumentException(OutputMasking.mask(message), e);
    }
  }
}
