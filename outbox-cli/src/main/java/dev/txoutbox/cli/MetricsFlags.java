package dev.txoutbox.cli;

import dev.txoutbox.metrics.OutboxMetrics;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code txoutbox relay}'s flags for its HTTP endpoint ({@code /metrics}, {@code /health}) and its
 * meters, and their checked values. Not thread-safe: picocli fills it, then the relay reads it
 * once.
 */
final class MetricsFlags {

  /** Where {@code /metrics} and {@code /health} listen unless {@code --metrics-host} widens it. */
  static final String DEFAULT_HOST = "127.0.0.1";

  /** How long {@code /health} waits for the database unless {@code --health-timeout} says. */
  static final Duration DEFAULT_HEALTH_TIMEOUT = Duration.ofSeconds(2);

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

  /**
   * The endpoint and meters the flags ask for, checked.
   *
   * @param port the endpoint's port, or null for none
   * @param host its address
   * @param healthTimeout how long {@code /health} waits for the database
   * @param refresh how often the backlog gauges are read
   * @param maxEventTypes event types with a tag value of their own
   */
  record Checked(
      Integer port, String host, Duration healthTimeout, Duration refresh, int maxEventTypes) {

    /** How the start line shows the endpoint. */
    String describe() {
      return port == null ? "off" : "on " + host + ":" + port;
    }
  }

  /**
   * The values of the flags, or their defaults.
   *
   * @throws IllegalArgumentException naming the flag and its limit
   */
  Checked check() {
    if (port != null && (port < 0 || port > 65535)) {
      throw new IllegalArgumentException(
          "--metrics-port must be between 0 and 65535 but was " + port);
    }
    if (refresh != null && refresh.isZero()) {
      throw new IllegalArgumentException("--metrics-refresh must be positive but was 0ms");
    }
    if (healthTimeout != null && healthTimeout.isZero()) {
      throw new IllegalArgumentException("--health-timeout must be positive but was 0ms");
    }
    int types = maxEventTypes == null ? OutboxMetrics.DEFAULT_MAX_EVENT_TYPES : maxEventTypes;
    if (types < 1 || types > OutboxMetrics.MAX_EVENT_TYPES) {
      throw new IllegalArgumentException(
          "--metrics-max-event-types must be between 1 and "
              + OutboxMetrics.MAX_EVENT_TYPES
              + " but was "
              + types);
    }
    return new Checked(
        port,
        host == null ? DEFAULT_HOST : host,
        healthTimeout == null ? DEFAULT_HEALTH_TIMEOUT : healthTimeout,
        refresh == null ? OutboxMetrics.DEFAULT_REFRESH_INTERVAL : refresh,
        types);
  }
}
