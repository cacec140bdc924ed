package dev.txoutbox.console;

import com.sun.net.httpserver.HttpHandler;
import dev.txoutbox.schema.OutboxTables;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The operations console: pages and a JSON API that show one or more outboxes (backlog, events,
 * dead letters, the WAL slot) and requeue or purge dead letters through {@link
 * dev.txoutbox.OutboxAdmin}.
 *
 * <pre>{@code
 * OutboxConsole console = OutboxConsole.builder()
 *     .outbox("billing", dataSource, OutboxTables.in("billing"))
 *     .adminCredential(AdminCredential.fromEnvironment("TXOUTBOX_CONSOLE_SECRET"))
 *     .build();
 * try (ConsoleServer server = console.start()) { ... }   // http://127.0.0.1:8089/
 * }</pre>
 *
 * <p>Three ways to serve it: {@link #start()} on the JDK's own HTTP server; {@link #httpHandler()}
 * mounted on a {@code com.sun.net.httpserver.HttpServer} the application runs ({@code
 * server.createContext("/outbox", console.httpHandler())}); or {@link #handle(ConsoleRequest)}
 * called from any other server's handler (servlet, Jetty, Undertow), which maps its request and
 * response in a few lines.
 *
 * <p>Safety: without an {@link AdminCredential} the console is read-only. Every action is a POST
 * checked for the same origin, the credential and a CSRF token, and writes one line (who, what, how
 * many rows) to the log {@code dev.txoutbox.console.audit}. Nothing changes on GET. Every statement
 * runs under the statement timeout. Pages render every value as text.
 *
 * <p>This class is thread-safe.
 */
public final class OutboxConsole implements AutoCloseable {

  /** The address {@link #start()} binds unless told otherwise: {@code 127.0.0.1}, loopback. */
  public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";

  /** The port {@link #start()} listens on unless told otherwise: 8089. */
  public static final int DEFAULT_PORT = 8089;

  /**
   * The hosts requests may name unless told otherwise: {@code localhost}, {@code 127.0.0.1} and
   * {@code ::1}.
   */
  public static final Set<String> DEFAULT_ALLOWED_HOSTS = Set.of("localhost", "127.0.0.1", "::1");

  /** The statement timeout unless told otherwise: 5 seconds. */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  /** How long the overview's counts are reused, for any number of viewers: 5 seconds. */
  public static final Duration DEFAULT_COUNTS_MAX_AGE = Duration.ofSeconds(5);

  /** How often the console samples each outbox for the overview's charts: every 10 seconds. */
  public static final Duration DEFAULT_SAMPLE_INTERVAL = Duration.ofSeconds(10);

  /** The longest statement timeout accepted: 5 minutes. */
  public static final Duration MAX_STATEMENT_TIMEOUT = Duration.ofMinutes(5);

  /**
   * An outbox's name in URLs: 1 to 40 characters of a-z, 0-9, _ and -, starting with a letter or
   * digit.
   */
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,39}");

  private final Api api;
  private final String bindAddress;
  private final int port;
  private final String description;

  private OutboxConsole(Api api, String bindAddress, int port, String description) {
    this.api = api;
    this.bindAddress = bindAddress;
    this.port = port;
    this.description = description;
  }

  /**
   * Stops the sampling of the overview's charts and takes no more actions (one running finishes on
   * its own thread). Does not stop a {@link ConsoleServer} (close that itself) or a handler mounted
   * elsewhere, which keeps answering, its charts no longer growing. Idempotent.
   */
  @Override
  public void close() {
    api.close();
  }

  /** The chart sampler, which tests drive directly. */
  Sampler sampler() {
    return api.sampler();
  }

  /** The effective settings, for the start line; the credential by its source only. */
  String describe() {
    return description;
  }

  /** Starts configuring a console. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Answers one request; for adapters of HTTP servers other than the JDK's. Never throws: a failure
   * is an answer (4xx for the request's fault, 503 for the database's, 500 otherwise).
   *
   * @throws NullPointerException if {@code request} is null
   */
  public ConsoleResponse handle(ConsoleRequest request) {
    return api.handle(Objects.requireNonNull(request, "request"));
  }

  /**
   * The console as a handler for the JDK's HTTP server, to mount under any path of a server the
   * application already runs: {@code server.createContext("/outbox", console.httpHandler())}. The
   * console's links start with the context's path.
   */
  public HttpHandler httpHandler() {
    return new JdkHandler(this);
  }

  /**
   * Serves the console on its own JDK HTTP server at {@link Builder#bindAddress(String)} and {@link
   * Builder#port(int)}, with daemon threads named {@code txoutbox-console-http-N}.
   *
   * @throws java.io.UncheckedIOException if the address cannot be bound; the message names it
   */
  public ConsoleServer start() {
    return ConsoleServer.start(this, bindAddress, port);
  }

  /** Configures an {@link OutboxConsole}. Not thread-safe. */
  public static final class Builder {
    private @Nullable DataSource dataSource;
    private final Map<String, OutboxSpec> outboxes = new LinkedHashMap<>();
    private @Nullable AdminCredential credential;
    private String bindAddress = DEFAULT_BIND_ADDRESS;
    private Set<String> allowedHosts = DEFAULT_ALLOWED_HOSTS;
    private int port = DEFAULT_PORT;
    private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;
    private Duration sampleInterval = DEFAULT_SAMPLE_INTERVAL;
    private Duration countsMaxAge = DEFAULT_COUNTS_MAX_AGE;
    private Clock clock = Clock.systemUTC();
    private @Nullable DataSource fleetDataSource;
    private @Nullable String fleetSchema;

    private Builder() {}

    private record OutboxSpec(@Nullable DataSource dataSource, OutboxTables tables) {}

    /**
     * The database of the outboxes added without one of their own ({@link #outbox(String,
     * OutboxTables)}).
     *
     * @throws NullPointerException if {@code dataSource} is null
     */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /**
     * Shows the outbox at {@code tables} in the database of {@link #dataSource(DataSource)} as
     * {@code name}. The first outbox added is the one the console opens on.
     *
     * @param name its name in URLs ({@code /o/<name>/}): 1 to 40 characters of {@code a-z}, {@code
     *     0-9}, {@code _} and {@code -}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is not such a name or is already taken
     */
    public Builder outbox(String name, OutboxTables tables) {
      return add(name, null, tables);
    }

    /**
     * Shows the outbox at {@code tables} in {@code dataSource} as {@code name}; see {@link
     * #outbox(String, OutboxTables)}.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is not a valid name or is already taken
     */
    public Builder outbox(String name, DataSource dataSource, OutboxTables tables) {
      return add(name, Objects.requireNonNull(dataSource, "dataSource"), tables);
    }

    private Builder add(String name, @Nullable DataSource dataSource, OutboxTables tables) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(tables, "tables");
      if (!NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "outbox name must be 1 to 40 characters of a-z, 0-9, _ and -, starting with a letter"
                + " or digit, but was "
                + Text.quoted(name));
      }
      if (outboxes.containsKey(name)) {
        throw new IllegalArgumentException(
            "outbox name must be unique but " + Text.quoted(name) + " was given twice");
      }
      outboxes.put(name, new OutboxSpec(dataSource, tables));
      return this;
    }

    /**
     * Also shows a relay fleet at {@code /fleet}: its registry of outboxes, its nodes, and which
     * node serves which outbox under which lease term, with the last renewal, read from the fleet's
     * control tables in {@code schema} of {@code controlDataSource} (outbox-fleet's {@code
     * FleetSchema}). Needs outbox-fleet on the class path, which the console declares as an
     * optional dependency: a console without a fleet never loads it. Read-only, under the statement
     * timeout. Defaults to none.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code schema} is not a valid schema name
     */
    public Builder fleet(DataSource controlDataSource, String schema) {
      this.fleetDataSource = Objects.requireNonNull(controlDataSource, "controlDataSource");
      this.fleetSchema = dev.txoutbox.schema.OutboxSchema.requireSchemaName(schema);
      return this;
    }

    /**
     * The secret that unlocks requeue and purge. Without one (the default) the console is
     * read-only.
     *
     * @throws NullPointerException if {@code credential} is null
     */
    public Builder adminCredential(AdminCredential credential) {
      this.credential = Objects.requireNonNull(credential, "credential");
      return this;
    }

    /**
     * The address {@link OutboxConsole#start()} listens on. Defaults to {@value
     * #DEFAULT_BIND_ADDRESS}: only this machine can connect. Give {@code 0.0.0.0} only behind TLS
     * and with care.
     *
     * @throws NullPointerException if {@code bindAddress} is null
     * @throws IllegalArgumentException if it is blank
     */
    public Builder bindAddress(String bindAddress) {
      ConsoleOptions.BIND_ADDRESS.check(bindAddress);
      this.bindAddress = bindAddress;
      return this;
    }

    /**
     * The host names requests may name in their {@code Host} header (without the port; IPv6
     * addresses without brackets); a request naming another is refused with 403, reads included.
     * This keeps a page of another site, whose name was made to resolve to the console's address
     * (DNS rebinding), from reading or acting. Defaults to {@link #DEFAULT_ALLOWED_HOSTS}, right
     * for a console on loopback; give the names users reach it by when it is bound elsewhere,
     * behind a proxy or mounted on a service. No name at all turns the check off.
     *
     * @throws NullPointerException if {@code hosts} or one of them is null
     * @throws IllegalArgumentException if a name is blank or holds a port
     */
    public Builder allowedHosts(String... hosts) {
      Set<String> names = new java.util.LinkedHashSet<>();
      for (String host : Objects.requireNonNull(hosts, "hosts")) {
        Objects.requireNonNull(host, "hosts must not hold null");
        names.add(
            Objects.requireNonNull(
                ConsoleOptions.hostName(ConsoleOptions.ALLOWED_HOST.check(host)), "checked"));
      }
      this.allowedHosts = Set.copyOf(names);
      return this;
    }

    /**
     * The port {@link OutboxConsole#start()} listens on; 0 takes any free port. Defaults to {@value
     * #DEFAULT_PORT}.
     *
     * @throws IllegalArgumentException if {@code port} is not between 0 and 65535
     */
    public Builder port(int port) {
      this.port = ConsoleOptions.PORT.check(port);
      return this;
    }

    /**
     * How long any statement of the console may run before the server cancels it (PostgreSQL's
     * {@code statement_timeout}, set on each connection the console borrows and reset when it gives
     * it back). Defaults to 5 seconds.
     *
     * @throws NullPointerException if {@code statementTimeout} is null
     * @throws IllegalArgumentException if it is not between 1 ms and 5 minutes
     */
    public Builder statementTimeout(Duration statementTimeout) {
      Objects.requireNonNull(statementTimeout, "statementTimeout");
      if (statementTimeout.toMillis() < 1
          || statementTimeout.compareTo(MAX_STATEMENT_TIMEOUT) > 0) {
        throw new IllegalArgumentException(
            "statementTimeout must be between 1ms and 5m but was " + statementTimeout);
      }
      this.statementTimeout = statementTimeout;
      return this;
    }

    /**
     * How long the overview's counts ({@code OutboxAdmin.status()}, which counts the pending events
     * and is the costliest read on a large backlog) are reused before they are read again, however
     * many pages, browser tabs and the chart sampler ask: the console's load on the database stays
     * bounded while it is watched. An action forgets them. {@link Duration#ZERO} reads them at
     * every request. Defaults to 5 seconds.
     *
     * @throws NullPointerException if {@code maxAge} is null
     * @throws IllegalArgumentException if it is negative or longer than 5 minutes
     */
    public Builder countsMaxAge(Duration maxAge) {
      Objects.requireNonNull(maxAge, "maxAge");
      if (maxAge.isNegative() || maxAge.compareTo(Duration.ofMinutes(5)) > 0) {
        throw new IllegalArgumentException(
            "countsMaxAge must be between 0s and 5m but was " + maxAge);
      }
      this.countsMaxAge = maxAge;
      return this;
    }

    /**
     * How often the console samples each outbox (one {@code OutboxAdmin.status()}) for the
     * overview's charts of the last hour, while it runs; sampling starts at its first request.
     * Defaults to 10 seconds.
     *
     * @throws NullPointerException if {@code interval} is null
     * @throws IllegalArgumentException if it is not between 1 second and 10 minutes
     */
    public Builder sampleInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.compareTo(Duration.ofSeconds(1)) < 0
          || interval.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException(
            "sampleInterval must be between 1s and 10m but was " + interval);
      }
      this.sampleInterval = interval;
      return this;
    }

    /**
     * The clock "now" is read from (which events are due, the oldest's age). Defaults to the system
     * clock in UTC.
     *
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Checks the settings and makes the console. Nothing is started and no connection is made.
     *
     * @throws IllegalStateException if no outbox was added, or one was added without a data source
     *     and no {@link #dataSource(DataSource)} was given, or {@link #fleet(DataSource, String)}
     *     was given without outbox-fleet on the class path
     */
    public OutboxConsole build() {
      if (outboxes.isEmpty()) {
        throw new IllegalStateException(
            "outboxes must hold at least one outbox (outbox(name, tables)) but held none");
      }
      Map<String, ConsoleOutbox> built = new LinkedHashMap<>();
      outboxes.forEach(
          (name, spec) -> {
            DataSource ds = spec.dataSource() != null ? spec.dataSource() : dataSource;
            if (ds == null) {
              throw new IllegalStateException(
                  "outbox "
                      + Text.quoted(name)
                      + " must have a data source (outbox(name, dataSource, tables), or"
                      + " dataSource(...) for all) but has none");
            }
            built.put(
                name,
                new ConsoleOutbox(
                    name,
                    ds,
                    spec.tables(),
                    statementTimeout,
                    clock,
                    Sampler.capacity(sampleInterval),
                    countsMaxAge));
          });
      FleetPage fleet = fleetDataSource == null ? null : fleetPage();
      Api api =
          new Api(
              Collections.unmodifiableMap(built),
              new Guard(credential, allowedHosts, new SecureRandom()),
              new Assets(),
              statementTimeout,
              clock,
              new Sampler(List.copyOf(built.values()), sampleInterval, clock),
              fleet);
      String description =
          "outboxes "
              + built.values().stream()
                  .map(o -> o.name() + " (" + o.tables() + ")")
                  .collect(java.util.stream.Collectors.joining(", "))
              + (credential == null ? "; read-only" : "; actions unlocked by " + credential)
              + "; statement timeout "
              + dev.txoutbox.spi.DurationText.of(statementTimeout)
              + "; allowed hosts "
              + (allowedHosts.isEmpty() ? "any" : new java.util.TreeSet<>(allowedHosts))
              + (fleet == null ? "" : "; fleet of control schema " + fleet.schema());
      return new OutboxConsole(api, bindAddress, port, description);
    }

    private FleetPage fleetPage() {
      try {
        Class.forName(FleetPage.FLEET_CLASS, false, OutboxConsole.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(
            "fleet(...) needs outbox-fleet on the class path (the console's optional dependency"
                + " dev.txoutbox:outbox-fleet) but it is not",
            e);
      }
      return new FleetPage(
          java.util.Objects.requireNonNull(fleetDataSource),
          java.util.Objects.requireNonNull(fleetSchema),
          statementTimeout);
    }
  }
}
