package dev.txoutbox.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The top command: the options every subcommand shares (where the database is, which schema,
 * verbosity), given before or after the subcommand's name.
 */
@Command(
    name = "txoutbox",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = "Operates a txoutbox transactional outbox on PostgreSQL.",
    footerHeading = "%nEnvironment:%n",
    footer = {
      "  OUTBOX_JDBC_URL     JDBC URL, when --jdbc-url is not given",
      "  OUTBOX_DB_USER      user, when --user is not given",
      "  OUTBOX_DB_PASSWORD  password (or --password-file; never an option)",
      "",
      "Exit codes:",
      "  0  done",
      "  1  failure, such as an unreachable database (one line on stderr)",
      "  2  bad arguments, or purge or wal-slot drop without --yes: nothing was touched",
      "  3  status found dead letters"
    })
final class TxoutboxCommand implements Callable<Integer> {

  @Option(
      names = "--jdbc-url",
      scope = ScopeType.INHERIT,
      paramLabel = "URL",
      description =
          "PostgreSQL JDBC URL, such as jdbc:postgresql://db:5432/app (or OUTBOX_JDBC_URL)."
              + " Unless it sets them, the CLI adds connectTimeout="
              + ConnectionDefaults.CONNECT_TIMEOUT_SECONDS
              + "&tcpKeepAlive=true, and socketTimeout="
              + ConnectionDefaults.RELAY_SOCKET_TIMEOUT_SECONDS
              + " to the relay's connections or loginTimeout="
              + ConnectionDefaults.LOGIN_TIMEOUT_SECONDS
              + " to other commands' (seconds; socketTimeout=0 in the URL turns it off).")
  String jdbcUrl;

  @Option(
      names = "--user",
      scope = ScopeType.INHERIT,
      paramLabel = "USER",
      description = "Database user (or OUTBOX_DB_USER).")
  String user;

  @Option(
      names = "--password-file",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description =
          "Reads the database password from FILE (its first line). Default: OUTBOX_DB_PASSWORD.")
  Path passwordFile;

  @Option(
      names = "--schema",
      scope = ScopeType.INHERIT,
      paramLabel = "SCHEMA",
      description = "The schema holding the outbox tables. Default: public.")
  String schema;

  @Option(
      names = "--table-prefix",
      scope = ScopeType.INHERIT,
      paramLabel = "PREFIX",
      description =
          "The prefix of the outbox's table names (bill_ for bill_outbox_events), as given to"
              + " 'migrate'. Default: none.")
  String tablePrefix;

  @Option(
      names = {"-v", "--verbose"},
      scope = ScopeType.INHERIT,
      description = "Debug logging, and stack traces with errors.")
  boolean verbose;

  @Spec CommandSpec spec;

  private final CliContext context;

  TxoutboxCommand(CliContext context) {
    this.context = context;
  }

  CliContext context() {
    return context;
  }

  @Override
  public Integer call() {
    throw commandMissing(spec);
  }

  /** The usage error of a command run without one of its subcommands, naming them. */
  static ParameterException commandMissing(CommandSpec spec) {
    return new ParameterException(
        spec.commandLine(),
        "a command must be given (one of "
            + String.join(", ", spec.subcommands().keySet())
            + ") but was not");
  }
}
