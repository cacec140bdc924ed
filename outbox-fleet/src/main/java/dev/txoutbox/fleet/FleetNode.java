package dev.txoutbox.fleet;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.fleet.internal.ChangeListener;
import dev.txoutbox.fleet.internal.Coordinator;
import dev.txoutbox.fleet.internal.FleetMeters;
import dev.txoutbox.fleet.internal.LeaseStore;
import dev.txoutbox.fleet.internal.RunnerSettings;
import dev.txoutbox.schema.OutboxSchema;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process of a relay fleet: it joins the membership in the control database, takes leases on
 * the outboxes of the {@link FleetRegistry} up to its fair share of their weight, and runs one
 * relay per outbox it holds, each with its own pool, publisher, thread and relay name ({@code
 * <node>.<outbox>}).
 *
 * <p><b>Leases.</b> A lease has an owner, a term (incremented at each takeover) and an expiry set
 * from the database's clock. A node renews its leases every {@link Builder#renewInterval}; an
 * expired lease is taken by another node with one {@code UPDATE … WHERE expires_at < now()}, so the
 * database decides and two nodes never both win. A node that stops renewing (dead, frozen,
 * partitioned) loses its outboxes after {@link Builder#leaseTtl}, and another node starts serving
 * them at its next scan: <b>within lease TTL + scan interval</b> (plus the relay's start). A WAL
 * outbox starts on its new owner only once its replication slot is inactive.
 *
 * <p><b>Registry changes.</b> The node LISTENs for the registry's change notifications ({@link
 * Builder#listenForChanges(boolean)}) and scans at once when told of one, so an added outbox is
 * served within one scan plus the relay's start; the periodic scan is the safety net when a
 * notification is missed (listening connection lost, a pooler in transaction mode).
 *
 * <pre>{@code
 * FleetNode node = FleetNode.builder()
 *     .controlDataSource(controlDataSource)          // the registry's database
 *     .metrics(meterRegistry)                        // optional: meters tagged outbox=<name>
 *     .build();
 * node.start();
 * // shutdown: node.close() stops the relays and hands their leases over at once
 * }</pre>
 *
 * <p>This type is thread-safe.
 */
public final class FleetNode implements AutoCloseable {

  /** Lease TTL unless told otherwise: 15 s. */
  public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(15);

  /** Scan interval unless told otherwise: 5 s. */
  public static final Duration DEFAULT_SCAN_INTERVAL = Duration.ofSeconds(5);

  /** Shortest lease TTL accepted: 1 s. */
  public static final Duration MIN_LEASE_TTL = Duration.ofSeconds(1);

  /** Connections in each outbox's pool unless told otherwise: 3. */
  public static final int DEFAULT_POOL_SIZE = 3;

  /** Most connections in each outbox's pool: 100. */
  public static final int MAX_POOL_SIZE = 100;

  /** First wait after a failed relay start, doubling: 1 s. */
  public static final Duration DEFAULT_MIN_BACKOFF = Duration.ofSeconds(1);

  /** Longest wait after a failed relay start: 60 s. */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(60);

  /** Poll interval of a WAL outbox's sweeper unless told otherwise: 30 s. */
  public static final Duration DEFAULT_WAL_SWEEP_INTERVAL = Duration.ofSeconds(30);

  /**
   * Longest node id: 31 characters (a Deployment's pod name fits), so that {@code
   * <node>.<outbox>-sweeper}, the name of a WAL outbox's sweeper, fits a relay name (64).
   */
  public static final int MAX_NODE_ID_LENGTH = 31;

  private static final Logger log = LoggerFactory.getLogger(FleetNode.class);

  private final String nodeId;
  private final Coordinator coordinator;
  private final @Nullable ChangeListener changes;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final String description;

  private FleetNode(Builder b, String nodeId, Duration renewInterval) {
    this.nodeId = nodeId;
    Object registry = b.meterRegistry;
    if (registry != null) {
      FleetMeters.tagByOutbox(registry, nodeId);
    }
    RunnerSettings runners =
        new RunnerSettings(
            nodeId,
            b.publishers,
            b.relayConfig,
            registry,
            b.environment,
            b.poolSize,
            b.minBackoff,
            b.maxBackoff,
            b.walSweepInterval);
    LeaseStore store = new LeaseStore(b.controlDataSource(), b.controlSchema, b.leaseTtl);
    this.coordinator =
        new Coordinator(
            store,
            runners,
            FleetRegistry.columns(),
            FleetRegistry::row,
            b.leaseTtl,
            renewInterval,
            b.scanInterval,
            b.controlLossPolicy,
            b.relayConfig.shutdownTimeout());
    DataSource listenOn = b.listenDataSource != null ? b.listenDataSource : b.controlDataSource();
    this.changes =
        b.listen
            ? new ChangeListener(
                listenOn,
                FleetSchema.CHANGE_CHANNEL,
                b.controlSchema,
                nodeId,
                coordinator::scanSoon)
            : null;
    this.description =
        "fleet node "
            + nodeId
            + " (control schema "
            + b.controlSchema
            + ", lease TTL "
            + b.leaseTtl
            + ", renew every "
            + renewInterval
            + ", scan every "
            + b.scanInterval
            + (b.listen ? " and at each registry change" : " (not listening for changes)")
            + ", on control loss "
            + b.controlLossPolicy
            + ", pool size "
            + b.poolSize
            + ")";
  }

  /** Starts configuring a node. */
  public static Builder builder() {
    return new Builder();
  }

  /** This node's id, unique in the fleet. */
  public String nodeId() {
    return nodeId;
  }

  /**
   * Joins the fleet and returns; the node registers, scans and takes outboxes on its own thread.
   *
   * @throws IllegalStateException if already started or closed
   */
  public void start() {
    if (closed.get()) {
      throw new IllegalStateException("fleet node " + nodeId + " was closed; build a new one");
    }
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("fleet node " + nodeId + " was already started");
    }
    log.info("starting {}", description);
    coordinator.start();
    if (changes != null) {
      changes.start();
    }
  }

  /** Makes the node read the registry now instead of waiting for the scan. */
  public void scanNow() {
    coordinator.scanSoon();
  }

  /** The outboxes this node holds now and what their relays do, by name: for probes. */
  public List<Assignment> assignments() {
    return coordinator.assignments();
  }

  /**
   * Whether the node is started, not closed, and its last renewal in the control database is still
   * trusted (renewals have not failed for a lease TTL): what a health probe asks. A node holding no
   * outbox is healthy; it takes outboxes when others leave.
   */
  public boolean renewing() {
    return coordinator.renewing();
  }

  /**
   * Leaves the fleet cleanly: stops renewing, stops every relay (each within the relay
   * configuration's shutdown timeout), frees their leases so other nodes take them at their next
   * scan, and removes the node from the membership. Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      log.info("closing fleet node {}", nodeId);
      if (changes != null) {
        changes.close();
      }
      coordinator.close();
    }
  }

  /** Builds a {@link FleetNode}. Not thread-safe. */
  public static final class Builder {
    private @Nullable DataSource controlDataSource;
    private String controlSchema = FleetSchema.DEFAULT_SCHEMA;
    private @Nullable String nodeId;
    private Duration leaseTtl = DEFAULT_LEASE_TTL;
    private @Nullable Duration renewInterval;
    private Duration scanInterval = DEFAULT_SCAN_INTERVAL;
    private ControlLossPolicy controlLossPolicy = ControlLossPolicy.KEEP_POLLING;
    private PublisherFactory publishers = PublisherFactory.serviceLoader();
    private RelayConfig relayConfig = RelayConfig.defaults();
    private @Nullable Object meterRegistry;
    private Function<String, @Nullable String> environment = System::getenv;
    private int poolSize = DEFAULT_POOL_SIZE;
    private Duration minBackoff = DEFAULT_MIN_BACKOFF;
    private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    private Duration walSweepInterval = DEFAULT_WAL_SWEEP_INTERVAL;
    private boolean listen = true;
    private @Nullable DataSource listenDataSource;

    private Builder() {}

    /** The control database holding the registry, nodes and leases. Required. */
    public Builder controlDataSource(DataSource dataSource) {
      this.controlDataSource = Objects.requireNonNull(dataSource, "controlDataSource");
      return this;
    }

    /** The control schema. Defaults to {@value FleetSchema#DEFAULT_SCHEMA}. */
    public Builder controlSchema(String schema) {
      this.controlSchema = OutboxSchema.requireSchemaName(schema);
      return this;
    }

    /**
     * This node's id: 1 to 31 characters of {@code [A-Za-z0-9_-]}, unique in the fleet (a pod name
     * fits). Defaults to the host name's first label, cut to 25 characters, a dash and six random
     * hex digits.
     */
    public Builder nodeId(String nodeId) {
      this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
      return this;
    }

    /**
     * How long a lease and a heartbeat last without renewal: the bound on how long a dead node's
     * outboxes stay unserved, with {@link #scanInterval}. At least 1 s. Defaults to 15 s.
     */
    public Builder leaseTtl(Duration leaseTtl) {
      this.leaseTtl = Objects.requireNonNull(leaseTtl, "leaseTtl");
      return this;
    }

    /** How often leases are renewed: at most a third of the TTL. Defaults to a third of it. */
    public Builder renewInterval(Duration renewInterval) {
      this.renewInterval = Objects.requireNonNull(renewInterval, "renewInterval");
      return this;
    }

    /**
     * How often the node reads the registry, takes free or expired outboxes and balances. Positive.
     * Defaults to 5 s.
     */
    public Builder scanInterval(Duration scanInterval) {
      this.scanInterval = Objects.requireNonNull(scanInterval, "scanInterval");
      return this;
    }

    /**
     * Whether the node LISTENs on {@value FleetSchema#CHANGE_CHANNEL} of the control database,
     * where the registry announces every change at commit, and scans at once when told of one: an
     * added, changed, disabled or removed outbox is then acted on within a scan and the relay's
     * start, not a {@link #scanInterval}. One connection of the control data source stays open for
     * it; after a lost connection it reconnects with backoff and the scan interval remains the
     * bound meanwhile. Defaults to true.
     */
    public Builder listenForChanges(boolean listen) {
      this.listen = listen;
      this.listenDataSource = null;
      return this;
    }

    /**
     * As {@link #listenForChanges(boolean) listenForChanges(true)}, LISTENing on a connection of
     * {@code listener} instead of the control data source: for a control database reached through a
     * pooler in transaction mode (PgBouncer), which cannot carry a LISTEN, give a session-mode or
     * direct data source here.
     *
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder listenForChanges(DataSource listener) {
      this.listen = true;
      this.listenDataSource = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * What to do once renewals fail for a TTL. Defaults to {@link ControlLossPolicy#KEEP_POLLING}.
     */
    public Builder controlLossPolicy(ControlLossPolicy policy) {
      this.controlLossPolicy = Objects.requireNonNull(policy, "controlLossPolicy");
      return this;
    }

    /** Makes each outbox's publisher. Defaults to {@link PublisherFactory#serviceLoader()}. */
    public Builder publishers(PublisherFactory publishers) {
      this.publishers = Objects.requireNonNull(publishers, "publishers");
      return this;
    }

    /**
     * Every relay's configuration; its name is replaced by {@code <node>.<outbox>}. Defaults to
     * {@link RelayConfig#defaults()}.
     */
    public Builder relayConfig(RelayConfig relayConfig) {
      this.relayConfig = Objects.requireNonNull(relayConfig, "relayConfig");
      return this;
    }

    /**
     * Micrometer registry for every relay's meters, each tagged {@code outbox=<name>} and {@code
     * fleet_node=<id>} besides the relay's own tags. Defaults to none.
     */
    public Builder metrics(io.micrometer.core.instrument.MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** Where {@code env:NAME} references are looked up. Defaults to {@code System::getenv}. */
    public Builder environment(Function<String, @Nullable String> environment) {
      this.environment = Objects.requireNonNull(environment, "environment");
      return this;
    }

    /** Connections in each outbox's pool, 1 to {@value #MAX_POOL_SIZE}. Defaults to 3. */
    public Builder poolSize(int poolSize) {
      this.poolSize = poolSize;
      return this;
    }

    /** First and longest wait after a failed relay start. Default 1 s and 60 s. */
    public Builder startBackoff(Duration min, Duration max) {
      this.minBackoff = Objects.requireNonNull(min, "min");
      this.maxBackoff = Objects.requireNonNull(max, "max");
      return this;
    }

    /** The poll interval of a WAL outbox's sweeper. Defaults to 30 s. */
    public Builder walSweepInterval(Duration interval) {
      this.walSweepInterval = Objects.requireNonNull(interval, "walSweepInterval");
      return this;
    }

    private DataSource controlDataSource() {
      return Objects.requireNonNull(controlDataSource);
    }

    /**
     * Checks the options, each with its definition in {@link FleetOptions}, and builds the node
     * (not started).
     *
     * @throws IllegalArgumentException naming the option and its bounds when a value is out of them
     * @throws IllegalStateException if the control data source was not given
     */
    public FleetNode build() {
      if (controlDataSource == null) {
        throw new IllegalStateException("controlDataSource must be given but was not");
      }
      String id = FleetOptions.NODE_ID.check(nodeId != null ? nodeId : defaultNodeId());
      FleetOptions.LEASE_TTL.check(leaseTtl);
      Duration renew = renewInterval != null ? renewInterval : leaseTtl.dividedBy(3);
      FleetOptions.RENEW_INTERVAL.check(renew, leaseTtl);
      FleetOptions.SCAN_INTERVAL.check(scanInterval);
      FleetOptions.START_BACKOFF_MIN.check(minBackoff);
      FleetOptions.START_BACKOFF_MAX.check(maxBackoff, minBackoff);
      FleetOptions.WAL_SWEEP_INTERVAL.check(walSweepInterval);
      FleetOptions.POOL_SIZE.check(poolSize);
      return new FleetNode(this, id, renew);
    }

    private static String defaultNodeId() {
      String host;
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (Exception e) {
        host = "node";
      }
      String label = host.split("\\.")[0].replaceAll("[^A-Za-z0-9_-]", "").toLowerCase(Locale.ROOT);
      if (label.isEmpty()) {
        label = "node";
      }
      if (label.length() > 24) {
        label = label.substring(0, 24);
      }
      return label + "-" + String.format("%06x", ThreadLocalRandom.current().nextInt(1 << 24));
    }
  }
}
