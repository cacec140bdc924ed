package dev.txoutbox.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.txoutbox.spi.SecretMasking;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/** Assembles the command tree and runs one command line. */
final class Cli {

  private Cli() {}

  /**
   * Runs {@code args} and returns the exit code; prints results to the context's {@code out} and
   * diagnostics to its {@code err}.
   */
  static int run(CliContext context, String... args) {
    // jOOQ prints a banner and tips on first use unless told not to.
    System.setProperty("org.jooq.no-logo", "true");
    System.setProperty("org.jooq.no-tips", "true");
    routeJavaUtilLogging();
    // picocli's tracer writes to System.err past every masking, quoting argument text (such as
    // "Unbalanced quotes in [..]" with the end of a JAAS password): off, whatever picocli.trace
    // says.
    CommandLine.tracer().setLevel(CommandLine.TraceLevel.OFF);
    TxoutboxCommand root = new TxoutboxCommand(context);
    CommandLine cli = commandLine(root);
    // Before parsing: the parser's messages quote arguments.
    OutputMasking.hideArguments(List.of(args), names(cli));
    cli.setOut(new PrintWriter(context.out(), true));
    cli.setErr(new PrintWriter(context.err(), true));
    cli.setExecutionStrategy(
        parseResult -> {
          configureLogging(root.verbose);
          return new CommandLine.RunLast().execute(parseResult);
        });
    cli.setExecutionExceptionHandler(new FailureHandler(root));
    cli.setParameterExceptionHandler(new UsageHandler());
    return cli.execute(args);
  }

  /** The PostgreSQL driver logs through java.util.logging: to Logback, whose pattern masks. */
  private static synchronized void routeJavaUtilLogging() {
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }

  static CommandLine commandLine(TxoutboxCommand root) {
    CommandLine cli = new CommandLine(root);
    cli.addSubcommand(new MigrateCommand(root));
    // As a CommandLine of its own, so that picocli applies its model transformer (its flags).
    cli.addSubcommand(new CommandLine(new StatusCommand(root)));
    CommandLine deadLetters = new CommandLine(new DeadLettersCommand());
    deadLetters.addSubcommand(new DeadLettersCommand.ListCommand(root));
    deadLetters.addSubcommand(new DeadLettersCommand.GroupsCommand(root));
    deadLetters.addSubcommand(new DeadLettersCommand.RequeueCommand(root));
    deadLetters.addSubcommand(new DeadLettersCommand.PurgeCommand(root));
    cli.addSubcommand(deadLetters);
    cli.addSubcommand(new CleanupCommand(root));
    cli.addSubcommand(new ConsoleCommand(root));
    CommandLine walSlot = new CommandLine(new WalSlotCommand());
    walSlot.addSubcommand(new WalSlotCommand.ShowCommand(root));
    walSlot.addSubcommand(new WalSlotCommand.DropCommand(root));
    cli.addSubcommand(walSlot);
    PublisherCatalog publishers = PublisherCatalog.load();
    CommandLine relay = new CommandLine(new RelayCommand(root, publishers));
    PublisherOptions.install(relay, publishers);
    cli.addSubcommand(relay);
    CommandLine fleet = new CommandLine(new FleetCommand());
    CommandLine fleetRun = new CommandLine(new FleetRunCommand(root, publishers));
    fleet.addSubcommand(fleetRun);
    fleet.addSubcommand(new FleetListCommand(root));
    CommandLine fleetAdd = new CommandLine(new FleetAddCommand(root, publishers));
    PublisherOptions.install(fleetAdd, publishers);
    fleet.addSubcommand(fleetAdd);
    fleet.addSubcommand(new FleetRemoveCommand(root));
    cli.addSubcommand(fleet);
    return cli;
  }

  /** The names of every option and subcommand of {@code command}, and of theirs. */
  private static Set<String> names(CommandLine command) {
    Set<String> names = new HashSet<>(command.getSubcommands().keySet());
    command.getCommandSpec().options().forEach(o -> names.addAll(List.of(o.names())));
    command.getSubcommands().values().forEach(sub -> names.addAll(names(sub)));
    return names;
  }

  private static void configureLogging(boolean verbose) {
    if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
      if (verbose) {
        context.getTurboFilterList().removeIf(LogThrottle.class::isInstance);
      }
      Logger txoutbox = (Logger) LoggerFactory.getLogger("dev.txoutbox");
      txoutbox.setLevel(verbose ? Level.DEBUG : null);
      Logger flyway = (Logger) LoggerFactory.getLogger("org.flywaydb");
      flyway.setLevel(verbose ? Level.INFO : Level.WARN);
    }
  }

  /**
   * Turns a failed command into one line on stderr and exit code 1; the stack trace follows only
   * with {@code --verbose}.
   */
  private static final class FailureHandler implements IExecutionExceptionHandler {
    private final TxoutboxCommand root;

    FailureHandler(TxoutboxCommand root) {
      this.root = root;
    }

    @Override
    public int handleExecutionException(
        Exception e, CommandLine commandLine, ParseResult parseResult) {
      CliContext context = root.context();
      context.err().println("txoutbox: " + OutputMasking.line(describe(e)));
      if (root.verbose) {
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        context.err().print(OutputMasking.lines(trace.toString()));
      }
      context.err().flush();
      return ExitCodes.FAILURE;
    }

    private String describe(Exception e) {
      if (e instanceof DatabaseUnavailableException || e instanceof CliException) {
        return e.getMessage(); // written for the user
      }
      SQLException sql = find(e, SQLException.class);
      if (sql != null) {
        String state = sql.getSQLState() == null ? "" : sql.getSQLState();
        String reason = DatabaseTarget.reason(sql);
        if (state.equals("42P01") || state.equals("3F000")) {
          return MissingOutbox.describe(root, reason);
        }
        if (state.startsWith("08")) {
          return "lost the database connection: " + reason;
        }
        return "database error: " + reason + (state.isEmpty() ? "" : " (SQLState " + state + ")");
      }
      String message = e.getMessage() == null ? "" : e.getMessage();
      String firstLine = message.lines().findFirst().orElse("");
      return e.getClass().getSimpleName() + (firstLine.isEmpty() ? "" : ": " + firstLine);
    }

    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
      for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
        if (type.isInstance(t)) {
          return type.cast(t);
        }
      }
      return null;
    }
  }

  /**
   * Bad arguments: the message (masked, one line), picocli's suggestions for a mistyped name
   * (masked), and a hint to the command's {@code --help} on stderr; exit code 2. The usage itself
   * is left to {@code --help}: after the one line that matters, it would fill the screen.
   */
  private static final class UsageHandler implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException e, String[] args) {
      CommandLine command = e.getCommandLine();
      PrintWriter err = command.getErr();
      err.println(OutputMasking.line(message(e)));
      StringWriter suggestions = new StringWriter();
      if (UnmatchedArgumentException.printSuggestions(e, new PrintWriter(suggestions))) {
        err.print(OutputMasking.lines(suggestions.toString()));
      }
      err.println(
          "Try '" + command.getCommandSpec().qualifiedName() + " --help' for more information.");
      err.flush();
      return command.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * The parser's message, without the value when a {@code NAME=VALUE} flag (such as {@code
     * --producer}) refused it: a value that is not {@code NAME=VALUE} may be a setting's value
     * alone, a secret.
     */
    private static String message(ParameterException e) {
      ArgSpec arg = e.getArgSpec();
      String value = e.getValue();
      boolean mapValue = arg != null && arg.isOption() && Map.class.isAssignableFrom(arg.type());
      return mapValue && value != null && !value.isEmpty()
          ? e.getMessage().replace(value, SecretMasking.MASK)
          : e.getMessage();
    }
  }
}
