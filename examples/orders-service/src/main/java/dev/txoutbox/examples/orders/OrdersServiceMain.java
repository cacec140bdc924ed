package dev.txoutbox.examples.orders;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar orders-service.jar [--orders N] [--writers N] [--broker-outage] ...}: runs the
 * order service end to end on whatever PostgreSQL and Kafka it finds or starts, prints progress and
 * a summary, and exits with 0 only when no event was lost.
 *
 * <p>Exit codes: 0 every event arrived; 1 events were lost or the run failed; 2 bad arguments.
 */
@Command(
    name = "orders-service",
    mixinStandardHelpOptions = true,
    version = "txoutbox orders example 0.1.0-SNAPSHOT",
    sortOptions = false,
    description = {
      "Creates orders, each written with its order.created event in one transaction;",
      "the outbox relay publishes the events to Kafka; an idempotent consumer counts",
      "them. Ends with a summary in which lost must be 0.",
      "",
      "PostgreSQL: --jdbc-url or OUTBOX_JDBC_URL, else the local service at",
      "127.0.0.1:5432 (database " + Postgres.LOCAL_DATABASE + "), else an embedded PostgreSQL.",
      "Kafka: --bootstrap-servers, else an embedded broker in a child JVM.",
      ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every order's event arrived (lost = 0)",
      "1:events were lost, or the run failed",
      "2:bad arguments"
    })
public final class OrdersServiceMain implements Callable<Integer> {

  @Option(
      names = "--orders",
      paramLabel = "N",
      description = "Orders to create. Default: ${DEFAULT-VALUE}.")
  int orders = RunOptions.DEFAULT_ORDERS;

  @Option(
      names = "--writers",
      paramLabel = "N",
      description = "Threads creating orders concurrently. Default: ${DEFAULT-VALUE}.")
  int writers = RunOptions.DEFAULT_WRITERS;

  @Option(
      names = "--broker-outage",
      description =
          "Stop the embedded Kafka broker once a third of the orders are written, then start it"
              + " again, so the outbox visibly grows and drains.")
  boolean brokerOutage;

  @Option(
      names = "--outage-seconds",
      paramLabel = "S",
      description = "How long the broker stays down. Default: ${DEFAULT-VALUE}.")
  int outageSeconds = (int) RunOptions.DEFAULT_OUTAGE.toSeconds();

  @Option(
      names = "--bootstrap-servers",
      paramLabel = "HOST:PORT",
      description = "A Kafka cluster to use instead of the embedded broker.")
  String bootstrapServers;

  @Option(
      names = "--jdbc-url",
      paramLabel = "URL",
      defaultValue = "${env:OUTBOX_JDBC_URL}",
      description =
          "The PostgreSQL to use. Default: $OUTBOX_JDBC_URL; password from"
              + " $OUTBOX_DB_PASSWORD.")
  String jdbcUrl;

  @Option(
      names = "--db-user",
      paramLabel = "USER",
      defaultValue = "${env:OUTBOX_DB_USER:-postgres}",
      description = "User for --jdbc-url. Default: $OUTBOX_DB_USER, else postgres.")
  String dbUser;

  @Option(
      names = "--embedded-postgres",
      description = "Skip the local PostgreSQL service and start an embedded one.")
  boolean embeddedPostgres;

  @Option(
      names = "--schema",
      paramLabel = "NAME",
      description = "Schema for the outbox and the example's tables. Default: ${DEFAULT-VALUE}.")
  String schema = RunOptions.DEFAULT_SCHEMA;

  @Option(
      names = "--timeout-seconds",
      paramLabel = "S",
      description =
          "How long to wait for the last events after the last order is written."
              + " Default: ${DEFAULT-VALUE}.")
  int timeoutSeconds = (int) RunOptions.DEFAULT_DRAIN_TIMEOUT.toSeconds();

  @Option(
      names = "--ops-port",
      paramLabel = "PORT",
      description =
          "Serve /health and the read-only outbox console at http://127.0.0.1:PORT/outbox/ while"
              + " the example runs (0: any free port). Default: off.")
  Integer opsPort;

  @Option(names = "--verbose", description = "Print the stack trace of a failure.")
  boolean verbose;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private final PrintStream out;

  /** A command printing to standard output. */
  public OrdersServiceMain() {
    this(System.out);
  }

  OrdersServiceMain(PrintStream out) {
    this.out = out;
  }

  /** Runs the example and exits with its exit code. */
  public static void main(String[] args) {
    System.exit(commandLine(new OrdersServiceMain()).execute(args));
  }

  static CommandLine commandLine(OrdersServiceMain command) {
    return new CommandLine(command).setExecutionExceptionHandler(OrdersServiceMain::failed);
  }

  /** A failure while running: one line on standard error, the stack trace only with --verbose. */
  private static int failed(
      Exception e, CommandLine commandLine, CommandLine.ParseResult parseResult) {
    OrdersServiceMain command = commandLine.getCommand();
    if (command.verbose) {
      e.printStackTrace(commandLine.getErr());
    }
    StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null && !message.toString().contains(cause.getMessage())) {
        message.append(": ").append(cause.getMessage());
      }
    }
    commandLine.getErr().println("orders-service: " + message);
    if (!command.verbose) {
      commandLine.getErr().println("(--verbose shows the stack trace)");
    }
    return 1;
  }

  @Override
  public Integer call() throws Exception {
    RunOptions options;
    try {
      options =
          new RunOptions(
              orders,
              writers,
              brokerOutage,
              Duration.ofSeconds(outageSeconds),
              dev.txoutbox.schema.OutboxSchema.requireSchemaName(schema),
              Duration.ofSeconds(timeoutSeconds));
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    if (brokerOutage && bootstrapServers != null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--broker-outage stops the embedded broker; it cannot be combined with"
              + " --bootstrap-servers");
    }
    String password = System.getenv("OUTBOX_DB_PASSWORD");
    try (Postgres postgres =
        Postgres.open(jdbcUrl, dbUser, password, embeddedPostgres, writers + 6)) {
      out.println("PostgreSQL: " + postgres.description() + ", schema " + schema);
      if (opsPort != null) {
        // The outbox tables must exist before the console reads them: migrate them first.
        dev.txoutbox.schema.OutboxSchema.migrate(postgres.dataSource(), schema);
      }
      try (OpsServer ops =
          opsPort == null ? null : OpsServer.start(postgres.dataSource(), schema, opsPort)) {
        if (ops != null) {
          out.println("Console:    " + ops.consoleUri() + " (read-only)");
        }
        return run(options, postgres);
      }
    }
  }

  /** The example itself, on the database found or started. */
  private Integer run(RunOptions options, Postgres postgres) throws Exception {
    out.println(
        bootstrapServers == null
            ? "Kafka:      starting an embedded broker..."
            : "Kafka:      " + bootstrapServers);
    try (KafkaBroker broker =
        bootstrapServers == null
            ? KafkaBroker.embedded()
            : KafkaBroker.external(bootstrapServers)) {
      if (broker.isEmbedded()) {
        out.println("Kafka:      " + broker.description());
      }
      out.printf(
          "Writing %,d orders with %d writers; topic %s%s%n%n",
          orders,
          writers,
          OrdersExample.TOPIC,
          brokerOutage ? "; the broker goes down after a third" : "");
      Summary summary = OrdersExample.run(options, postgres.dataSource(), broker, out);
      summary.print(out);
      return summary.ok() ? 0 : 1;
    }
  }
}
