package dev.txoutbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptions;
import dev.txoutbox.fleet.Assignment;
import dev.txoutbox.fleet.ControlLossPolicy;
import dev.txoutbox.fleet.FleetNode;
import dev.txoutbox.fleet.FleetOptions;
import dev.txoutbox.fleet.FleetSchema;
import dev.txoutbox.fleet.PublisherFactory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/**
 * {@code txoutbox fleet run}: one node of a relay fleet ({@link FleetNode}) until SIGTERM or
 * SIGINT. It joins the membership in the control database, takes its share of the registry's
 * outboxes and runs one relay per outbox it holds; on SIGTERM it stops each relay (its batch in
 * flight gets {@code --shutdown-timeout}), frees the leases at once and leaves, exit code 0. With
 * {@code --metrics-port}: {@code /metrics}, {@code /health} (200 while the node's lease renewals
 * hold and the control database answers) and {@code /fleet} (the node's assignments, JSON).
 */
@Command(
    name = "run",
    modelTransformer = FleetRunCommand.DefinedFlags.class,
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs a fleet node until stopped (SIGTERM, SIGINT): it takes its share of the registry's"
          + " outboxes and runs a relay for each. On SIGTERM it stops its relays, frees their"
          + " leases at once for the other nodes and exits 0.",
      "An outbox's publisher is the one its entry names, with its settings; secret ones are read"
          + " from this process's environment or files (env:NAME, file:/path)."
    })
final class FleetRunCommand extends FleetCommand.Control {

  private static final Logger log = LoggerFactory.getLogger(FleetRunCommand.class);

  /** The control database's pool: the coordinator's renewals and scans, and the health check. */
  static final int CONTROL_POOL_SIZE = 3;

  /** The path of the assignments document. */
  static final String ASSIGNMENTS_PATH = "/fleet";

  /** The node's own options, in the order of their {@code Node:} section. */
  static final List<RelayOption<?>> NODE_OPTIONS =
      List.of(
          FleetOptions.NODE_ID,
          FleetOptions.LEASE_TTL,
          FleetOptions.RENEW_INTERVAL,
          FleetOptions.SCAN_INTERVAL,
          FleetOptions.CONTROL_LOSS_POLICY,
          FleetOptions.WAL_SWEEP_INTERVAL);

  /** How {@code --on-control-loss} reads a {@link ControlLossPolicy}. */
  static final EnumFlag<ControlLossPolicy> CONTROL_LOSS =
      OptionFlags.enumFlag(FleetOptions.CONTROL_LOSS_POLICY, ControlLossPolicy.class);

  // The node's Node: section, and each outbox's relay takes relay's own Relay: (but for
  // --relay-name and --listen, which are refused) and Retry: sections, all made from the options'
  // definitions: DefinedFlags.

  @ArgGroup(validate = false, heading = "%nMetrics and health:%n", order = 4)
  HttpFlags http = new HttpFlags();

  private final PublisherCatalog publishers;

  FleetRunCommand(TxoutboxCommand root, PublisherCatalog publishers) {
    super(root);
    this.publishers = publishers;
  }

  /**
   * Adds the flags made from the options' definitions: the node's {@code Node:} section, and the
   * {@code Relay:} and {@code Retry:} sections as {@code relay} has them.
   */
  static final class DefinedFlags implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec run) {
      OptionFlags.addGroup(
          run,
          "%nNode:%n",
          0,
          NODE_OPTIONS.stream().map(o -> OptionFlags.option(o, null)).toList());
      RelayFlags.install(run);
      RetryFlags.install(run, "%nRetry:%n", 3);
      return run;
    }
  }

  /** The HTTP endpoint. */
  static final class HttpFlags {
    @Option(
        names = "--metrics-port",
        paramLabel = "PORT",
        description =
            "Serve /metrics (Prometheus, every relay's meters tagged outbox and fleet_node),"
                + " /health and "
                + ASSIGNMENTS_PATH
                + " (this node's assignments, JSON) on PORT. Default: no endpoint.")
    Integer port;

    @Option(
        names = "--metrics-host",
        paramLabel = "HOST",
        description =
            "The address to listen on; 0.0.0.0 for every interface (no authentication)."
                + " Default: 127.0.0.1.")
    String host;

    @Option(
        names = "--health-timeout",
        paramLabel = "DURATION",
        converter = Durations.class,
        description =
            "/health answers 503 unless the control database answers within it. Default: 2s.")
    Duration healthTimeout;
  }

  @Override
  public Integer call() {
    root.context().shutdown().arm();
    DatabaseTarget target = controlTarget();
    String schema = controlSchema();
    RelayConfig config = relayConfig();
    Integer port = http.port;
    if (port != null && (port < 0 || port > 65535)) {
      throw usageError("--metrics-port must be between 0 and 65535 but was " + port);
    }
    if (http.healthTimeout != null && http.healthTimeout.isZero()) {
      throw usageError("--health-timeout must be positive but was 0ms");
    }
    String host = http.host == null ? MetricsFlags.DEFAULT_HOST : http.host;
    Duration healthTimeout =
        http.healthTimeout == null ? Duration.ofSeconds(2) : http.healthTimeout;
    // Every flag checked before anything connects; the node is built with the control pool below.
    int poolSize = poolSize(config);
    FleetNode.Builder builder = nodeBuilder(config, poolSize, schema);
    String nodeId = OptionFlags.given(spec.commandLine().getParseResult(), FleetOptions.NODE_ID);
    String nodeName = nodeId != null ? nodeId : "fleet";
    try {
      if (!DatabaseWait.untilItAnswers(nodeName, target, root.context().shutdown())) {
        log.info("fleet node stopped before the control database answered");
        return ExitCodes.OK;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ExitCodes.OK;
    }
    boolean interrupted = false;
    try (Closer closer = new Closer()) {
      PrometheusMeterRegistry registry = null;
      if (port != null) {
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        closer.add(r::close);
        registry = r;
        builder.metrics(r);
      }
      // Without pool meters: the node tags every meter of the registry by a filter, which
      // Micrometer wants in place before the first meter.
      HikariDataSource control =
          closer.add(target.pool("txoutbox-fleet-control", CONTROL_POOL_SIZE, null));
      FleetSchema.migrate(control, schema);
      // Every value was checked by nodeBuilder, with the options' definitions.
      FleetNode fleet = builder.controlDataSource(control).build();
      if (port != null) {
        HealthCheck health =
            closer.add(
                new HealthCheck(
                    control,
                    healthTimeout,
                    fleet::renewing,
                    "fleet node not renewing its leases in the control database"));
        closer.add(
            MetricsServer.start(
                host, port, registry, health, Map.of(ASSIGNMENTS_PATH, () -> assignments(fleet))));
      }
      log.info(
          "fleet node '{}' starting: control database {}, control schema {}; relays: {}; metrics"
              + " {}",
          fleet.nodeId(),
          target,
          schema,
          describe(config, poolSize),
          port == null ? "off" : "on " + host + ":" + port);
      closer.add(fleet::close);
      fleet.start();
      log.info("fleet node '{}' running; stop it with SIGTERM", fleet.nodeId());
      try {
        root.context().shutdown().await();
      } catch (InterruptedException e) {
        interrupted = true;
      }
      log.info(
          "fleet node '{}' stopping: each relay's batch in flight gets up to {}",
          fleet.nodeId(),
          Durations.format(config.shutdownTimeout()));
    }
    log.info("fleet node stopped");
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return ExitCodes.OK;
  }

  /** The node's assignments as one JSON object, for {@value #ASSIGNMENTS_PATH}. */
  static String assignments(FleetNode fleet) {
    ObjectNode o = Json.object().put("node", fleet.nodeId()).put("renewing", fleet.renewing());
    ArrayNode list = o.putArray("assignments");
    for (Assignment a : fleet.assignments()) {
      list.addObject()
          .put("outbox", a.outbox())
          .put("term", a.term())
          .put("state", a.state().name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .put("last_error", a.lastError() == null ? null : OutputMasking.mask(a.lastError()));
    }
    return Json.write(o);
  }

  /**
   * The node's builder with the flags given, each checked first with its option's definition in the
   * words of the flags; not built, so nothing connects yet.
   */
  private FleetNode.Builder nodeBuilder(RelayConfig config, int poolSize, String schema) {
    ParseResult parsed = spec.commandLine().getParseResult();
    FleetNode.Builder b =
        FleetNode.builder()
            .controlSchema(schema)
            .relayConfig(config)
            .publishers(publishers())
            // env: references are read from the CLI's environment
            .environment(root.context().env()::get)
            .poolSize(poolSize);
    try {
      for (RelayOption<?> option : NODE_OPTIONS) {
        OptionFlags.check(parsed, option, OptionFlags.FLAGS);
      }
      String policy =
          parsed.matchedOptionValue(OptionFlags.flag(FleetOptions.CONTROL_LOSS_POLICY), null);
      if (policy != null) {
        b.controlLossPolicy(CONTROL_LOSS.parse(policy));
      }
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
    String id = OptionFlags.given(parsed, FleetOptions.NODE_ID);
    if (id != null) {
      b.nodeId(id);
    }
    Duration leaseTtl = OptionFlags.given(parsed, FleetOptions.LEASE_TTL);
    if (leaseTtl != null) {
      b.leaseTtl(leaseTtl);
    }
    Duration renew = OptionFlags.given(parsed, FleetOptions.RENEW_INTERVAL);
    if (renew != null) {
      b.renewInterval(renew);
    }
    Duration scan = OptionFlags.given(parsed, FleetOptions.SCAN_INTERVAL);
    if (scan != null) {
      b.scanInterval(scan);
    }
    Duration sweep = OptionFlags.given(parsed, FleetOptions.WAL_SWEEP_INTERVAL);
    if (sweep != null) {
      b.walSweepInterval(sweep);
    }
    return b;
  }

  /**
   * Each outbox's publisher, made by the {@code relay} command's own code from the entry's
   * publisher name and its resolved settings: the same provider lookup, the same errors in the
   * words of the flags, and the resolved secrets hidden from every line the process prints.
   */
  private PublisherFactory publishers() {
    PublisherCatalog catalog = publishers;
    return (outbox, settings, clientName) ->
        RelayPublishers.of(outbox.publisher(), Map.of(), settings, catalog, clientName).create();
  }

  private RelayConfig relayConfig() {
    ParseResult parsed = spec.commandLine().getParseResult();
    RelayFlags relay = RelayFlags.of(parsed);
    if (relay.given(RelayOptions.NAME)) {
      throw usageError(
          "--relay-name does not apply to fleet run: each relay is named <node>.<outbox>");
    }
    if (relay.listen()) {
      throw usageError("--listen does not apply to fleet run: its relays poll");
    }
    try {
      return RelayCommand.relayConfig(relay, RetryFlags.of(parsed));
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
  }

  /**
   * {@code --pool-size}, or {@code --workers} + 2 as for {@code relay}: each outbox's own pool, at
   * most {@link FleetOptions#POOL_SIZE}'s bound.
   */
  private int poolSize(RelayConfig config) {
    Integer given = RelayFlags.of(spec.commandLine().getParseResult()).poolSize();
    int size = given != null ? given : config.workers() + 2;
    if (size < config.workers() || size > FleetNode.MAX_POOL_SIZE) {
      throw usageError(
          "--pool-size must be between --workers ("
              + config.workers()
              + ") and "
              + FleetNode.MAX_POOL_SIZE
              + " but was "
              + size);
    }
    return size;
  }

  private static String describe(RelayConfig c, int poolSize) {
    return "batch size "
        + c.batchSize()
        + ", workers "
        + c.workers()
        + RelayStartLine.attemptsAndOrder(c)
        + ", poll "
        + Durations.format(c.minPollInterval())
        + " to "
        + Durations.format(c.maxPollInterval())
        + RelayStartLine.backoffAndShutdown(c)
        + RetryPolicyText.perType(c)
        + ", pool size "
        + poolSize
        + " each";
  }
}
