package dev.txoutbox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Ordering;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.console.ConsoleServer;
import dev.txoutbox.console.OutboxConsole;
import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.wal.WalRelay;
import dev.txoutbox.wal.WalRelayBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/**
 * {@code txoutbox relay}: a standalone relay process. Runs until SIGTERM or SIGINT, then stops
 * claiming, lets the in-flight batch commit (or rolls it back after {@code --shutdown-timeout}),
 * closes the publisher, the pool and the HTTP endpoint, and exits 0. With {@code --source wal} it
 * runs a {@link WalRelay} reading the outbox's inserts from a logical replication slot, and beside
 * it, in the same process, the polling relay as its sweeper every {@code --sweep-interval}.
 */
@Command(
    name = "relay",
    modelTransformer = RelayCommand.DefinedFlags.class,
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Publishes pending outbox events to a broker until stopped (SIGTERM, SIGINT).",
      "--source wal reads them from a logical replication slot, with a polling sweeper beside it.",
      "On SIGTERM it finishes or rolls back the batch in flight, closes everything and exits 0."
    })
final class RelayCommand extends DatabaseCommand {

  private static final Logger log = LoggerFactory.getLogger(RelayCommand.class);

  /** How long the start-up broker check waits for the broker's answer. */
  static final Duration BROKER_CHECK_TIMEOUT = Duration.ofSeconds(5);

  /** How the relay's pool and publisher name themselves to the database and the broker. */
  static final String CLIENT_NAME_PREFIX = "txoutbox-relay-";

  /**
   * The WAL relay's and the sweeper's connections, and two spare (health, backlog gauges), with one
   * batch at a time; one more per further {@code --concurrent-batches}.
   */
  static final int WAL_POOL_SIZE = 4;

  @Option(
      names = "--publisher",
      paramLabel = "NAME",
      description =
          "The broker: one of the publishers listed at the end, with their flags. Required"
              + " unless --publisher-config routes events.")
  String publisher;

  @Option(
      names = "--publisher-config",
      paramLabel = "FILE",
      description = {
        "A properties file of publisher settings named like the flags without dashes"
            + " (amqp-uri=..., topic.order=orders, producer.sasl.jaas.config=...);"
            + " flags override it.",
        "Or a routed outbox, several publishers chosen per event: route.event-type.TYPE=NAME,"
            + " route.aggregate-type.TYPE=NAME (an event type's route wins), route.default=NAME"
            + " (else an unrouted event is a dead letter), and each routed publisher's settings"
            + " prefixed by its name (kafka.bootstrap-servers=..., sqs.queue.payment=...); no"
            + " --publisher, no publisher flags then.",
        "It may also hold the retry policies' retry.* keys, as a --retry-config file does"
            + " (then not both)."
      })
  Path publisherConfig;

  // The Relay: (1), Retry: (2) and Source: (3) sections are made from the options' definitions:
  // DefinedFlags.

  @ArgGroup(validate = false, heading = "%nMetrics and health:%n", order = 4)
  MetricsFlags metrics = new MetricsFlags();

  @ArgGroup(validate = false, heading = "%nOperations console:%n", order = 5)
  RelayConsoleFlags console = new RelayConsoleFlags();

  /** The publishers found; their flags are added to this command by {@link PublisherOptions}. */
  private final PublisherCatalog publishers;

  RelayCommand(TxoutboxCommand root, PublisherCatalog publishers) {
    super(root);
    this.publishers = publishers;
  }

  /**
   * Adds the flags made from the relay options' definitions to the command as picocli builds it:
   * its {@code Relay:}, {@code Retry:} and {@code Source:} sections.
   */
  static final class DefinedFlags implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec relay) {
      RelayFlags.install(relay);
      RetryFlags.install(relay, "%nRetry:%n", 2);
      WalFlags.install(relay);
      return relay;
    }
  }

  @Override
  public Integer call() {
    root.context().shutdown().arm();
    DatabaseTarget target = target();
    ParseResult parsed = spec.commandLine().getParseResult();
    RelayFlags relay = RelayFlags.of(parsed);
    WalFlags wal = WalFlags.of(parsed);
    WalFlags.Source source;
    WalRelayBuilder walRelay;
    RelayConfig config;
    MetricsFlags.Checked endpoint;
    try {
      source = wal.source();
      wal.check(source, relay);
      config = relayConfig(relay, RetryFlags.of(parsed, publisherConfig));
      walRelay = source == WalFlags.Source.WAL ? wal.walRelay(target) : null;
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
    RelayPublishers settings = relayPublishers(config.name());
    int batches = wal.concurrentBatches();
    if (walRelay != null && batches > 1 && config.ordering() != Ordering.NONE) {
      throw usageError(
          "--concurrent-batches must be 1 with --ordering "
              + RelayFlags.ORDERING.word(config.ordering())
              + " but was "
              + batches
              + ": each batch's check of earlier events needs the outcomes of the batches before"
              + " it");
    }
    int poolSize = poolSize(relay, walRelay != null, config, batches);
    OutboxConsole.Builder consoleBuilder;
    try {
      endpoint = metrics.check();
      consoleBuilder = console.check();
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
    Integer port = endpoint.port();
    Publisher broker = newPublisher(settings);
    // Every argument is checked: only now is the relay said to start.
    log.info(
        "relay '{}' starting: database {}, url defaults {}; publisher {}; {}; pool size {};"
            + " metrics {}; console {}",
        config.name(),
        target,
        target.relayDefaults(),
        settings.describe(),
        walRelay == null
            ? RelayStartLine.describe(config, relay.listen())
            : wal.describe(config, target),
        poolSize,
        endpoint.describe(),
        console.describe());

    boolean interrupted = false;
    try {
      if (!DatabaseWait.untilItAnswers(config.name(), target, root.context().shutdown())) {
        broker.close();
        log.info("relay stopped before the database answered");
        return ExitCodes.OK;
      }
    } catch (InterruptedException e) {
      broker.close();
      Thread.currentThread().interrupt();
      return ExitCodes.OK;
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
    try (Closer closer = new Closer()) {
      // Closed in reverse order: the relay first, then its meters, the publisher, the HTTP
      // endpoint and its health check, the pool and the registry.
      HikariDataSource pool;
      PrometheusMeterRegistry registry = null;
      // The relays that must be running for /health to answer 200: the relay, and the WAL relay.
      AtomicReference<BooleanSupplier> running = new AtomicReference<>(() -> false);
      try {
        if (port != null) {
          registry = closer.add(new Registry()).registry;
        }
        pool = closer.add(target.pool(CLIENT_NAME_PREFIX + config.name(), poolSize, registry));
        MissingOutbox.require(pool, root, target.tables());
        if (port != null) {
          HealthCheck health =
              closer.add(
                  new HealthCheck(
                      pool, endpoint.healthTimeout(), () -> running.get().getAsBoolean()));
          closer.add(MetricsServer.start(endpoint.host(), port, registry, health));
        }
        if (consoleBuilder != null) {
          closer.add(startConsole(consoleBuilder, target));
        }
      } finally {
        closer.add(broker);
      }
      RelayMetrics meters = null;
      if (registry != null) {
        meters =
            closer.add(RelayMetrics.bind(registry, endpoint.refresh(), endpoint.maxEventTypes()));
      }
      if (walRelay == null) {
        OutboxRelay.Builder builder =
            OutboxRelay.builder()
                .dataSource(pool)
                .tables(target.tables())
                .publisher(broker)
                .config(config)
                .listenForNotifications(relay.listen());
        if (meters != null) {
          builder.metrics(meters.outbox());
        }
        OutboxRelay outboxRelay = builder.build();
        closer.add(() -> outboxRelay.close(config.shutdownTimeout()));
        outboxRelay.start();
        running.set(outboxRelay::isRunning);
      } else {
        // One object: the WAL relay builds, starts and closes its polling sweeper itself.
        if (meters != null) {
          walRelay.metrics(meters.outbox());
        }
        WalRelay reader =
            walRelay
                .dataSource(pool)
                .publisher(broker)
                .config(config)
                .sweepInterval(wal.sweepInterval())
                .build();
        closer.add(() -> reader.close(config.shutdownTimeout()));
        WalFlags.start(reader);
        // The sweeper reports running from the relay's start (it polls one sweep interval after
        // the stream opened): healthy once both run.
        running.set(
            () -> reader.isRunning() && reader.sweeper().map(OutboxRelay::isRunning).orElse(false));
      }
      log.info("relay '{}' running; stop it with SIGTERM", config.name());
      try {
        checkBroker(config.name(), broker);
        root.context().shutdown().await();
      } catch (InterruptedException e) {
        interrupted = true;
      }
      log.info(
          "relay '{}' stopping: the batch in flight gets up to {}",
          config.name(),
          Durations.format(config.shutdownTimeout()));
    }
    log.info("relay stopped");
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return ExitCodes.OK;
  }

  /**
   * The pool's size: {@code --pool-size}, or enough for the relay and two spare.
   *
   * @throws picocli.CommandLine.ParameterException if {@code --pool-size} is too small for the
   *     relay or above 1000
   */
  private int poolSize(RelayFlags relay, boolean walSource, RelayConfig config, int batches) {
    int minPool = walSource ? 1 + batches : config.workers();
    Integer given = relay.poolSize();
    int poolSize =
        given != null ? given : walSource ? WAL_POOL_SIZE + batches - 1 : config.workers() + 2;
    if (poolSize < minPool || poolSize > 1000) {
      throw usageError(
          RelayFlags.POOL_SIZE
              + " must be between "
              + (walSource
                  ? minPool
                      + (batches == 1
                          ? " (the WAL relay and its sweeper)"
                          : " (the WAL relay's " + batches + " batches and its sweeper)")
                  : "--workers (" + config.workers() + ")")
              + " and 1000 but was "
              + poolSize);
    }
    return poolSize;
  }

  /**
   * Serves the console beside the relay, on its own connections (one per request, never the relay's
   * pool).
   *
   * @throws CliException if its address cannot be bound
   */
  private ConsoleServer startConsole(OutboxConsole.Builder checked, DatabaseTarget target) {
    OutboxConsole outboxConsole = ConsoleSetup.build(checked, target.dataSource(), target.tables());
    try {
      return outboxConsole.start();
    } catch (UncheckedIOException e) {
      throw new CliException(
          "cannot serve the console (--console-bind, --console-port): "
              + OutputMasking.mask(String.valueOf(e.getMessage())),
          e);
    }
  }

  /** The Prometheus registry, closed last. */
  private static final class Registry implements AutoCloseable {
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @Override
    public void close() {
      registry.close();
    }
  }

  /**
   * The relay's configuration of the relay and retry flags, each checked in the words of its flag
   * (or of its key in the {@code --retry-config} file).
   *
   * @throws IllegalArgumentException naming the flag or key at fault
   */
  static RelayConfig relayConfig(RelayFlags relay, RetryFlags retry) {
    RelayConfig.Builder b = RelayConfig.builder();
    relay.applyTo(b);
    retry.applyTo(b);
    return b.build();
  }

  /**
   * The publishers of the flags and the {@code --publisher-config} file: one, or several routed by
   * type; checked, not yet created.
   */
  private RelayPublishers relayPublishers(String relayName) {
    try {
      Map<String, String> file =
          publisherConfig == null
              ? Map.of()
              : PropertiesFile.read("--publisher-config", publisherConfig);
      return RelayPublishers.of(
          publisher,
          file,
          PublisherOptions.given(spec.commandLine().getParseResult(), null, publishers),
          publishers,
          CLIENT_NAME_PREFIX + relayName);
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
  }

  private Publisher newPublisher(RelayPublishers chosen) {
    try {
      return chosen.create();
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
  }

  /**
   * Asks the broker once, after the relay started, whether it answers and accepts the publisher: a
   * wrong password is then said at once instead of showing only as an outage when the first event
   * is pending. The relay runs either way and waits for the broker as for any outage.
   */
  private static void checkBroker(String relayName, Publisher broker) throws InterruptedException {
    BrokerCheck check = broker.checkBroker(BROKER_CHECK_TIMEOUT);
    switch (check.status()) {
      case REACHABLE ->
          log.info("relay '{}': broker check: {}", relayName, Printable.of(check.detail()));
      case UNREACHABLE ->
          log.warn(
              "relay '{}': broker check failed: {}; the relay keeps running and waits for the"
                  + " broker as for an outage",
              relayName,
              Printable.of(check.detail()));
      case NOT_CHECKED ->
          log.debug("relay '{}': broker check: {}", relayName, Printable.of(check.detail()));
    }
  }
}
