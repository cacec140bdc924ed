package dev.txoutbox.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.console.ConsoleServer;
import dev.txoutbox.console.OutboxConsole;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.SecretMasking;
import dev.txoutbox.wal.WalRelay;
import dev.txoutbox.wal.WalSlot;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code txoutbox relay}: a standalone relay process. Runs until SIGTERM or SIGINT, then stops
 * claiming, lets the in-flight batch commit (or rolls it back after {@code --shutdown-timeout}),
 * closes the publisher, the pool and the HTTP endpoint, and exits 0. With {@code --source wal} it
 * runs a {@link WalRelay} reading the outbox's inserts from a logical replication slot, and beside
 * it, in the same process, the polling relay as its sweeper every {@code --sweep-interval}.
 */
@Command(
    name = "relay",
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

  /** Where {@code /metrics} and {@code /health} listen unless {@code --metrics-host} widens it. */
  static final String DEFAULT_METRICS_HOST = "127.0.0.1";

  /** Where the relay learns of new events. */
  enum Source {
    /** Polling the table: {@code OutboxRelay}. */
    POLL,
    /** A logical replication slot: {@code WalRelay}, with {@code OutboxRelay} as its sweeper. */
    WAL
  }

  /** How {@code --source} reads and writes a {@link Source}. */
  static final EnumFlag<Source> SOURCE = EnumFlag.of("--source", Source.class);

  /** How often the sweeper beside the WAL relay polls unless {@code --sweep-interval} says. */
  static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(30);

  /**
   * The WAL relay's and the sweeper's connections, and two spare (health, backlog gauges), with one
   * batch at a time; one more per further {@code --concurrent-batches}.
   */
  static final int WAL_POOL_SIZE = 4;

  /** The flag that sets each option of {@link WalRelay.Builder}. */
  private static final Map<String, String> WAL_FLAGS =
      Map.of(
          "slotName", "--slot",
          "publicationName", "--publication",
          "replicationUrl", "--replication-url",
          "minBatchInterval", "--min-batch-interval",
          "concurrentBatches", "--concurrent-batches");

  /** How {@code --ordering} reads and writes an {@link Ordering}. */
  static final EnumFlag<Ordering> ORDERING = EnumFlag.of("--ordering", Ordering.class);

  /** How {@code --completion} reads and writes a {@link CompletionMode}. */
  static final EnumFlag<CompletionMode> COMPLETION =
      EnumFlag.of(
          "--completion",
          CompletionMode.class,
          mode ->
              switch (mode) {
                case MARK_PROCESSED -> "mark";
                case DELETE -> "delete";
              });

  /**
   * The flag that sets each option of {@link RelayConfig}; the retry flags are {@link RetryFlags}.
   */
  private static final Map<String, String> RELAY_FLAGS =
      Map.ofEntries(
          Map.entry("name", "--relay-name"),
          Map.entry("batchSize", "--batch-size"),
          Map.entry("workers", "--workers"),
          Map.entry("completionMode", "--completion"),
          Map.entry("ordering", "--ordering"),
          Map.entry("minPollInterval", "--min-poll-interval"),
          Map.entry("maxPollInterval", "--max-poll-interval"),
          Map.entry("shutdownTimeout", "--shutdown-timeout"));

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
            + " --publisher, no publisher flags then."
      })
  Path publisherConfig;

  @ArgGroup(validate = false, heading = "%nRelay:%n", order = 1)
  RelayFlags relay = new RelayFlags();

  @ArgGroup(validate = false, heading = "%nRetry:%n", order = 2)
  RetryFlags retry = new RetryFlags();

  @ArgGroup(validate = false, heading = "%nSource:%n", order = 3)
  WalFlags wal = new WalFlags();

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

  /** How the relay claims, publishes and retries. */
  static final class RelayFlags {
    @Option(
        names = "--relay-name",
        paramLabel = "NAME",
        description = "Names threads, logs and the relay tag of metrics. Default: default.")
    String name;

    @Option(
        names = "--batch-size",
        paramLabel = "N",
        description = "Events claimed and published per cycle, 1 to 10000. Default: 100.")
    Integer batchSize;

    @Option(
        names = "--workers",
        paramLabel = "N",
        description = "Concurrent claim-publish-complete loops, 1 to 64. Default: 1.")
    Integer workers;

    @Option(
        names = "--completion",
        paramLabel = "MODE",
        description =
            "mark: set processed_at (clean up with 'txoutbox cleanup'); delete: delete the row."
                + " Default: mark.")
    String completion;

    @Option(
        names = "--ordering",
        paramLabel = "MODE",
        description =
            "none: best-effort order; per-aggregate: an aggregate's next event waits until the"
                + " previous one is acknowledged, a dead letter halts its aggregate;"
                + " per-aggregate-skip-dead-letters: the same, but dead letters are parked."
                + " With --source wal, both the WAL relay and its sweeper. Install the index with"
                + " 'migrate --with-ordering-index'. Default: none.")
    String ordering;

    @Option(
        names = "--min-poll-interval",
        paramLabel = "DURATION",
        converter = Durations.class,
        description = "Wait after a partial batch. Default: 25ms.")
    Duration minPollInterval;

    @Option(
        names = "--max-poll-interval",
        paramLabel = "DURATION",
        converter = Durations.class,
        description = "Longest wait when idle. Default: 1s.")
    Duration maxPollInterval;

    @Option(
        names = "--shutdown-timeout",
        paramLabel = "DURATION",
        converter = Durations.class,
        description =
            "Time the in-flight batch gets at shutdown before it is rolled back."
                + " Default: 30s.")
    Duration shutdownTimeout;

    @Option(
        names = "--pool-size",
        paramLabel = "N",
        description = "Database connections, at least --workers. Default: workers + 2.")
    Integer poolSize;

    @Option(
        names = "--listen",
        description =
            "Also wake up on NOTIFY from the trigger that `migrate --with-notify-trigger`"
                + " installs, holding one pool connection; polling goes on. Default: poll only.")
    boolean listen;
  }

  /** Where events come from, and the WAL relay's slot. */
  static final class WalFlags {
    @Option(
        names = "--source",
        paramLabel = "SOURCE",
        description =
            "poll: poll the table; wal: read inserts from a logical replication slot (PostgreSQL"
                + " 13+, wal_level=logical), with a polling sweeper beside it for retries, delayed"
                + " events and anything the slot missed. Default: poll.")
    String source;

    @Option(
        names = "--slot",
        paramLabel = "NAME",
        description =
            "The replication slot (wal), 1 to 63 of a-z, 0-9 and _."
                + " Default: txoutbox_<table prefix><schema>.")
    String slot;

    @Option(
        names = "--publication",
        paramLabel = "NAME",
        description = "The publication (wal), same rule. Default: the slot's default name.")
    String publication;

    @Option(
        names = "--no-create-slot",
        description =
            "Fail (wal) if the slot or publication is missing, printing the SQL to create it,"
                + " instead of creating it. Default: create.")
    boolean noCreateSlot;

    @Option(
        names = "--replication-url",
        paramLabel = "URL",
        description =
            "The JDBC URL of the replication connection (wal), straight to the server, not"
                + " through a pooler; same user and password. Default: --jdbc-url.")
    String replicationUrl;

    @Option(
        names = "--sweep-interval",
        paramLabel = "DURATION",
        converter = Durations.class,
        description = "How often the sweeper polls (wal). Default: 30s.")
    Duration sweepInterval;

    @Option(
        names = "--min-batch-interval",
        paramLabel = "DURATION",
        converter = Durations.class,
        description =
            "The shortest time between two batches that are not full (wal): fewer, larger"
                + " batches while events come fast, each waiting up to that much; 0ms publishes as"
                + " soon as the stream has nothing more; at most 1s. Default: 1ms.")
    Duration minBatchInterval;

    @Option(
        names = "--concurrent-batches",
        paramLabel = "N",
        description =
            "Batches claimed and published at a time (wal), 1 to 8, with --ordering none only:"
                + " more drains a backlog faster where the database has cores to spare, but a"
                + " later batch may be published before an earlier one; positions are still"
                + " confirmed in commit order. Default: 1.")
    Integer concurrentBatches;
  }

  /** The HTTP endpoint. */
  static final class MetricsFlags {
    @Option(
        names = "--metrics-port",
        paramLabel = "PORT",
        description = "Serve /metrics (Prometheus) and /health on PORT. Default: no endpoint.")
    Integer port;

    @Option(
        names = "--metrics-host",
        paramLabel = "HOST",
        description =
            "The address to listen on; 0.0.0.0 for every interface (the endpoint has no"
                + " authentication). Default: 127.0.0.1.")
    String host;

    @Option(
        names = "--health-timeout",
        paramLabel = "DURATION",
        converter = Durations.class,
        description =
            "/health answers 503 unless the database answers within it, on a pooled"
                + " connection. Default: 2s.")
    Duration healthTimeout;

    @Option(
        names = "--metrics-refresh",
        paramLabel = "DURATION",
        converter = Durations.class,
        description =
            "How often the backlog gauges (pending, dead letters, oldest age) are read from the"
                + " database; scrapes never query it. Default: 15s.")
    Duration refresh;

    @Option(
        names = "--metrics-max-event-types",
        paramLabel = "N",
        description =
            "Event types with an event_type tag value of their own, 1 to 10000; later ones are"
                + " counted as event_type=\"other\". Default: 200.")
    Integer maxEventTypes;
  }

  @Override
  public Integer call() {
    root.context().shutdown().arm();
    DatabaseTarget target = target();
    Source source = wal.source == null ? Source.POLL : parse(SOURCE, wal.source);
    checkSourceFlags(source);
    RelayConfig config = relayConfig();
    WalRelay.Builder walRelay = source == Source.WAL ? walRelay(target) : null;
    RelayPublishers settings = relayPublishers(config.name());
    int batches = concurrentBatches();
    if (source == Source.WAL && batches > 1 && config.ordering() != Ordering.NONE) {
      throw usageError(
          "--concurrent-batches must be 1 with --ordering "
              + ORDERING.word(config.ordering())
              + " but was "
              + batches
              + ": each batch's check of earlier events needs the outcomes of the batches before"
              + " it");
    }
    int minPool = source == Source.WAL ? 1 + batches : config.workers();
    int poolSize =
        relay.poolSize != null
            ? relay.poolSize
            : source == Source.WAL ? WAL_POOL_SIZE + batches - 1 : config.workers() + 2;
    if (poolSize < minPool || poolSize > 1000) {
      throw usageError(
          "--pool-size must be between "
              + (source == Source.WAL
                  ? minPool
                      + (batches == 1
                          ? " (the WAL relay and its sweeper)"
                          : " (the WAL relay's " + batches + " batches and its sweeper)")
                  : "--workers (" + config.workers() + ")")
              + " and 1000 but was "
              + poolSize);
    }
    Integer port = metrics.port;
    if (port != null && (port < 0 || port > 65535)) {
      throw usageError("--metrics-port must be between 0 and 65535 but was " + port);
    }
    if (metrics.refresh != null && metrics.refresh.isZero()) {
      throw usageError("--metrics-refresh must be positive but was 0ms");
    }
    if (metrics.healthTimeout != null && metrics.healthTimeout.isZero()) {
      throw usageError("--health-timeout must be positive but was 0ms");
    }
    int maxEventTypes =
        metrics.maxEventTypes == null
            ? OutboxMetrics.DEFAULT_MAX_EVENT_TYPES
            : metrics.maxEventTypes;
    if (maxEventTypes < 1 || maxEventTypes > OutboxMetrics.MAX_EVENT_TYPES) {
      throw usageError(
          "--metrics-max-event-types must be between 1 and "
              + OutboxMetrics.MAX_EVENT_TYPES
              + " but was "
              + maxEventTypes);
    }
    String host = metrics.host == null ? DEFAULT_METRICS_HOST : metrics.host;
    Duration healthTimeout =
        metrics.healthTimeout == null ? Duration.ofSeconds(2) : metrics.healthTimeout;
    OutboxConsole.Builder consoleBuilder;
    try {
      consoleBuilder = console.check();
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
    Publisher broker = newPublisher(settings);
    // Every argument is checked: only now is the relay said to start.
    log.info(
        "relay '{}' starting: database {}, url defaults {}; publisher {}; {}; pool size {};"
            + " metrics {}; console {}",
        config.name(),
        target,
        target.relayDefaults(),
        settings.describe(),
        walRelay == null ? describe(config) : describeWal(config, target),
        poolSize,
        port == null ? "off" : "on " + host + ":" + port,
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
              closer.add(new HealthCheck(pool, healthTimeout, () -> running.get().getAsBoolean()));
          closer.add(MetricsServer.start(host, port, registry, health));
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
            closer.add(
                RelayMetrics.bind(
                    registry,
                    metrics.refresh == null
                        ? OutboxMetrics.DEFAULT_REFRESH_INTERVAL
                        : metrics.refresh,
                    maxEventTypes));
      }
      if (walRelay == null) {
        OutboxRelay.Builder builder =
            OutboxRelay.builder()
                .dataSource(pool)
                .tables(target.tables())
                .publisher(broker)
                .config(config)
                .listenForNotifications(relay.listen);
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
        WalRelay wal =
            walRelay
                .dataSource(pool)
                .publisher(broker)
                .config(config)
                .sweepInterval(sweepInterval())
                .build();
        closer.add(() -> wal.close(config.shutdownTimeout()));
        startWal(wal);
        // The sweeper starts on the relay's thread once the slot is read: healthy once both run.
        running.set(
            () -> wal.isRunning() && wal.sweeper().map(OutboxRelay::isRunning).orElse(false));
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

  /** The relay's configuration in the words and units of its flags. */
  private String describe(RelayConfig c) {
    return "batch size "
        + c.batchSize()
        + ", workers "
        + c.workers()
        + attemptsAndOrder(c)
        + ", poll "
        + Durations.format(c.minPollInterval())
        + " to "
        + Durations.format(c.maxPollInterval())
        + backoffAndShutdown(c)
        + (relay.listen ? ", listening for NOTIFY" : "")
        + RetryPolicyText.perType(c);
  }

  /**
   * What both relays take from {@code c} before their own settings: attempts, completion, order.
   */
  static String attemptsAndOrder(RelayConfig c) {
    return ", max attempts "
        + c.maxAttempts()
        + ", completion "
        + COMPLETION.word(c.completionMode())
        + ", ordering "
        + ORDERING.word(c.ordering());
  }

  /** What both relays take from {@code c} after their own settings: the backoff, the shutdown. */
  static String backoffAndShutdown(RelayConfig c) {
    return ", backoff "
        + Durations.format(c.backoff().initialDelay())
        + " to "
        + Durations.format(c.backoff().maxDelay())
        + RetryPolicyText.defaultExtras(c)
        + ", shutdown timeout "
        + Durations.format(c.shutdownTimeout());
  }

  /** The WAL relay's and its sweeper's configuration in the words and units of their flags. */
  private String describeWal(RelayConfig c, DatabaseTarget target) {
    return "source wal: slot "
        + (wal.slot != null ? wal.slot : WalSlot.defaultName(target.tables()))
        + ", publication "
        + (wal.publication != null ? wal.publication : WalSlot.defaultName(target.tables()))
        + ", "
        + (wal.noCreateSlot ? "never creating them" : "creating them if missing")
        + ", replication url "
        + SecretMasking.maskUri(replicationUrl(target))
        + ", url defaults "
        + ConnectionDefaults.describe(
            ConnectionDefaults.missingFrom(replicationUrl(target), ConnectionDefaults.Use.RELAY))
        + ", batch size "
        + c.batchSize()
        + ", min batch interval "
        + Durations.format(
            wal.minBatchInterval != null
                ? wal.minBatchInterval
                : WalRelay.DEFAULT_MIN_BATCH_INTERVAL)
        + ", concurrent batches "
        + concurrentBatches()
        + attemptsAndOrder(c)
        + backoffAndShutdown(c)
        + RetryPolicyText.perType(c)
        + "; sweeper '"
        + c.name()
        + "-sweeper' every "
        + Durations.format(sweepInterval());
  }

  /**
   * Refuses the flags the chosen source does not read: the WAL flags with {@code --source poll},
   * and with {@code --source wal} the polling relay's flags that the WAL relay cannot honour.
   */
  private void checkSourceFlags(Source source) {
    List<String> given = new ArrayList<>();
    switch (source) {
      case POLL -> {
        addIf(given, wal.slot != null, "--slot");
        addIf(given, wal.publication != null, "--publication");
        addIf(given, wal.noCreateSlot, "--no-create-slot");
        addIf(given, wal.replicationUrl != null, "--replication-url");
        addIf(given, wal.sweepInterval != null, "--sweep-interval");
        addIf(given, wal.minBatchInterval != null, "--min-batch-interval");
        addIf(given, wal.concurrentBatches != null, "--concurrent-batches");
        if (!given.isEmpty()) {
          throw usageError(given.get(0) + " applies to --source wal only but --source is poll");
        }
      }
      case WAL -> {
        if (relay.workers != null) {
          throw notForWal("--workers", "it reads the slot on one thread, in commit order");
        }
        if (relay.minPollInterval != null || relay.maxPollInterval != null) {
          throw notForWal(
              relay.minPollInterval != null ? "--min-poll-interval" : "--max-poll-interval",
              "it does not poll; its sweeper polls every --sweep-interval");
        }
        if (relay.listen) {
          throw notForWal("--listen", "it reads each insert as it commits");
        }
        if (wal.sweepInterval != null && wal.sweepInterval.isZero()) {
          throw usageError("--sweep-interval must be positive but was 0ms");
        }
      }
    }
  }

  private static void addIf(List<String> given, boolean present, String flag) {
    if (present) {
      given.add(flag);
    }
  }

  private ParameterException notForWal(String flag, String why) {
    return usageError(flag + " does not apply to --source wal: " + why);
  }

  private Duration sweepInterval() {
    return wal.sweepInterval != null ? wal.sweepInterval : DEFAULT_SWEEP_INTERVAL;
  }

  /** The WAL relay's batches at a time: {@code --concurrent-batches}, or 1. */
  private int concurrentBatches() {
    return wal.concurrentBatches != null ? wal.concurrentBatches : 1;
  }

  /** {@code --replication-url}, or the database's own URL. */
  private String replicationUrl(DatabaseTarget target) {
    return wal.replicationUrl != null ? wal.replicationUrl : target.jdbcUrl();
  }

  /**
   * The WAL relay's builder with the slot, publication and replication connection of the flags;
   * checked, not yet connected.
   */
  private WalRelay.Builder walRelay(DatabaseTarget target) {
    if (wal.replicationUrl != null) {
      OutputMasking.hide(SecretMasking.secretsIn(wal.replicationUrl));
    }
    try {
      WalRelay.Builder b =
          WalRelay.builder()
              .tables(target.tables())
              .replicationUrl(
                  replicationUrl(target), target.replicationProperties(replicationUrl(target)))
              .createIfMissing(!wal.noCreateSlot);
      if (wal.slot != null) {
        b.slotName(wal.slot);
      }
      if (wal.publication != null) {
        b.publicationName(wal.publication);
      }
      if (wal.minBatchInterval != null) {
        b.minBatchInterval(wal.minBatchInterval);
      }
      if (wal.concurrentBatches != null) {
        b.concurrentBatches(wal.concurrentBatches);
      }
      return b;
    } catch (IllegalArgumentException e) {
      throw usageError(FlagNames.of(e.getMessage(), WAL_FLAGS));
    }
  }

  /**
   * Starts the WAL relay: a missing or unusable slot is one line, with the SQL or the flag to fix
   * it.
   */
  private static void startWal(WalRelay reader) {
    try {
      reader.start();
    } catch (IllegalStateException e) {
      throw new CliException(
          "the WAL relay cannot start: " + FlagNames.of(e.getMessage(), WAL_FLAGS), e);
    }
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

  private RelayConfig relayConfig() {
    return relayConfig(relay, retry, this);
  }

  /**
   * The configuration the relay flags and the retry flags give, checked: the relay's, and each
   * relay's of {@code fleet run}, which takes the same flags but for the name and {@code --listen}.
   *
   * @throws ParameterException naming the flag when a value is invalid
   */
  static RelayConfig relayConfig(RelayFlags relay, RetryFlags retry, DatabaseCommand command) {
    CompletionMode completion =
        relay.completion == null ? null : parse(COMPLETION, relay.completion, command);
    Ordering ordering = relay.ordering == null ? null : parse(ORDERING, relay.ordering, command);
    try {
      RelayConfig.Builder b = RelayConfig.builder();
      if (relay.name != null) {
        b.name(relay.name);
      }
      if (relay.batchSize != null) {
        b.batchSize(relay.batchSize);
      }
      if (relay.workers != null) {
        b.workers(relay.workers);
      }
      if (completion != null) {
        b.completionMode(completion);
      }
      if (ordering != null) {
        b.ordering(ordering);
      }
      if (relay.minPollInterval != null) {
        b.minPollInterval(relay.minPollInterval);
      }
      if (relay.maxPollInterval != null) {
        b.maxPollInterval(relay.maxPollInterval);
      }
      if (relay.shutdownTimeout != null) {
        b.shutdownTimeout(relay.shutdownTimeout);
      }
      try {
        retry.applyTo(b);
      } catch (IllegalArgumentException e) {
        // In the words of the flags and the file's keys already.
        throw command.usageError(e.getMessage());
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw command.usageError(FlagNames.of(e.getMessage(), RELAY_FLAGS));
    }
  }

  /** The constant {@code value} names; a usage error listing the accepted words otherwise. */
  private <E extends Enum<E>> E parse(EnumFlag<E> flag, String value) {
    return parse(flag, value, this);
  }

  /** The constant {@code value} names; {@code command}'s usage error otherwise. */
  static <E extends Enum<E>> E parse(EnumFlag<E> flag, String value, DatabaseCommand command) {
    try {
      return flag.parse(value);
    } catch (IllegalArgumentException e) {
      throw command.usageError(e.getMessage());
    }
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
