package dev.txoutbox;

import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a relay claims, publishes and retries. Immutable and thread-safe; made only by {@link
 * #builder()} (or {@link #toBuilder()} from another configuration), whose {@link Builder#build()}
 * checks every value.
 *
 * <p>A final class with accessors rather than a record: a record's canonical constructor and its
 * list of components are public API, so every new setting would break the callers that construct or
 * deconstruct it. With the builder as the only way in, a setting can be added with a default and no
 * caller changes.
 */
public final class RelayConfig {

  /** Default {@code name}. */
  public static final String DEFAULT_NAME = "default";

  /** Default {@code batchSize}: 100. */
  public static final int DEFAULT_BATCH_SIZE = 100;

  /** Largest {@code batchSize}: 10,000. */
  public static final int MAX_BATCH_SIZE = 10_000;

  /** Default {@code workers}: 1. */
  public static final int DEFAULT_WORKERS = 1;

  /** Largest {@code workers}: 64. */
  public static final int MAX_WORKERS = 64;

  /** Default {@code minPollInterval}: 25 ms. */
  public static final Duration DEFAULT_MIN_POLL_INTERVAL =
      defaultOf(RelayOptions.MIN_POLL_INTERVAL);

  /** Default {@code maxPollInterval}: 1 s. */
  public static final Duration DEFAULT_MAX_POLL_INTERVAL =
      defaultOf(RelayOptions.MAX_POLL_INTERVAL);

  /** Default {@code maxAttempts}: 10. */
  public static final int DEFAULT_MAX_ATTEMPTS = 10;

  /** Default {@code brokerProbeBackoff}: 1 s doubling to 30 s, 20% jitter. */
  public static final Backoff DEFAULT_BROKER_PROBE_BACKOFF =
      defaultOf(RelayOptions.BROKER_PROBE_BACKOFF);

  /** Default {@code shutdownTimeout}: 30 s. */
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = defaultOf(RelayOptions.SHUTDOWN_TIMEOUT);

  /** The longest event or aggregate type a retry policy can name: the column's 255 characters. */
  private static final int MAX_TYPE_LENGTH = 255;

  private final String name;
  private final int batchSize;
  private final int workers;
  private final Duration minPollInterval;
  private final Duration maxPollInterval;
  private final int maxAttempts;
  private final Backoff backoff;
  private final CompletionMode completionMode;
  private final Duration shutdownTimeout;
  private final Ordering ordering;
  private final Backoff brokerProbeBackoff;
  private final @Nullable Duration maxAge;
  private final @Nullable Duration vacuumInterval;
  private final RetryPolicy defaultPolicy;
  private final Map<String, RetryPolicy> eventTypePolicies;
  private final Map<String, RetryPolicy> aggregateTypePolicies;

  private RelayConfig(Builder b) {
    name = Objects.requireNonNull(b.name, "name");
    minPollInterval = Objects.requireNonNull(b.minPollInterval, "minPollInterval");
    maxPollInterval = Objects.requireNonNull(b.maxPollInterval, "maxPollInterval");
    backoff = Objects.requireNonNull(b.backoff, "backoff");
    completionMode = Objects.requireNonNull(b.completionMode, "completionMode");
    shutdownTimeout = Objects.requireNonNull(b.shutdownTimeout, "shutdownTimeout");
    ordering = Objects.requireNonNull(b.ordering, "ordering");
    brokerProbeBackoff = Objects.requireNonNull(b.brokerProbeBackoff, "brokerProbeBackoff");
    batchSize = b.batchSize;
    workers = b.workers;
    maxAttempts = b.maxAttempts;
    // Each rule is its option's definition, which the command line checks its flags with too.
    RelayOptions.NAME.check(name);
    RelayOptions.BATCH_SIZE.check(batchSize);
    RelayOptions.WORKERS.check(workers);
    RelayOptions.MAX_ATTEMPTS.check(maxAttempts);
    maxAge = b.maxAge;
    vacuumInterval = b.vacuumInterval;
    RetryPolicy policy = RetryPolicy.of(maxAttempts, backoff);
    defaultPolicy = maxAge == null ? policy : policy.withMaxAge(maxAge);
    eventTypePolicies = Collections.unmodifiableMap(new LinkedHashMap<>(b.eventTypePolicies));
    aggregateTypePolicies =
        Collections.unmodifiableMap(new LinkedHashMap<>(b.aggregateTypePolicies));
    RelayOptions.MIN_POLL_INTERVAL.check(minPollInterval);
    RelayOptions.MAX_POLL_INTERVAL.check(maxPollInterval, minPollInterval);
    RelayOptions.SHUTDOWN_TIMEOUT.check(shutdownTimeout);
  }

  private static <T> T defaultOf(RelayOption<T> option) {
    return Objects.requireNonNull(option.defaultValue(), option.name());
  }

  /** Names the relay's threads, logs and metrics. Defaults to {@value #DEFAULT_NAME}. */
  public String name() {
    return name;
  }

  /** Events claimed and published per cycle, 1 to {@value #MAX_BATCH_SIZE}. Defaults to 100. */
  public int batchSize() {
    return batchSize;
  }

  /** Concurrent claim-publish-complete loops, 1 to {@value #MAX_WORKERS}. Defaults to 1. */
  public int workers() {
    return workers;
  }

  /** The wait after a cycle that found some but not a full batch of events. Defaults to 25 ms. */
  public Duration minPollInterval() {
    return minPollInterval;
  }

  /**
   * The longest wait when idle; the wait doubles from {@link #minPollInterval()} up to this while
   * nothing is found. Defaults to 1 s.
   */
  public Duration maxPollInterval() {
    return maxPollInterval;
  }

  /** Publish attempts before an event becomes a dead letter, 1 to 1,000. Defaults to 10. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The delay between attempts of one event. Defaults to {@link Backoff#defaults()}. */
  public Backoff backoff() {
    return backoff;
  }

  /** What happens to a published event's row. Defaults to {@link CompletionMode#MARK_PROCESSED}. */
  public CompletionMode completionMode() {
    return completionMode;
  }

  /** How long {@link OutboxRelay#close()} lets an in-flight batch finish. Defaults to 30 s. */
  public Duration shutdownTimeout() {
    return shutdownTimeout;
  }

  /** Whether each aggregate's events are kept in order. Defaults to {@link Ordering#NONE}. */
  public Ordering ordering() {
    return ordering;
  }

  /**
   * While the broker is unavailable, the wait between probe batches. Defaults to {@link
   * #DEFAULT_BROKER_PROBE_BACKOFF}.
   */
  public Backoff brokerProbeBackoff() {
    return brokerProbeBackoff;
  }

  /** The default policy's age limit, or null for none (the default). */
  public @Nullable Duration maxAge() {
    return maxAge;
  }

  /**
   * How often the relay runs a plain {@code VACUUM} of its events table; null (the default) for
   * none, leaving the table to autovacuum.
   */
  public @Nullable Duration vacuumInterval() {
    return vacuumInterval;
  }

  /** The policy of events no per-type policy names: {@link #maxAttempts()}, {@link #backoff()}. */
  public RetryPolicy defaultRetryPolicy() {
    return defaultPolicy;
  }

  /** The policies given per event type, in the order they were set. */
  public Map<String, RetryPolicy> eventTypeRetryPolicies() {
    return eventTypePolicies;
  }

  /** The policies given per aggregate type, in the order they were set. */
  public Map<String, RetryPolicy> aggregateTypeRetryPolicies() {
    return aggregateTypePolicies;
  }

  /**
   * The policy that decides {@code message}'s failures: its event type's if one was set, else its
   * aggregate type's, else the default. Names match exactly.
   */
  public RetryPolicy retryPolicy(OutboxMessage message) {
    if (!eventTypePolicies.isEmpty()) {
      RetryPolicy p = eventTypePolicies.get(message.eventType());
      if (p != null) {
        return p;
      }
    }
    if (!aggregateTypePolicies.isEmpty()) {
      RetryPolicy p = aggregateTypePolicies.get(message.aggregateType());
      if (p != null) {
        return p;
      }
    }
    return defaultPolicy;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RelayConfig c
        && name.equals(c.name)
        && batchSize == c.batchSize
        && workers == c.workers
        && minPollInterval.equals(c.minPollInterval)
        && maxPollInterval.equals(c.maxPollInterval)
        && maxAttempts == c.maxAttempts
        && backoff.equals(c.backoff)
        && completionMode == c.completionMode
        && shutdownTimeout.equals(c.shutdownTimeout)
        && ordering == c.ordering
        && brokerProbeBackoff.equals(c.brokerProbeBackoff)
        && Objects.equals(maxAge, c.maxAge)
        && Objects.equals(vacuumInterval, c.vacuumInterval)
        && eventTypePolicies.equals(c.eventTypePolicies)
        && aggregateTypePolicies.equals(c.aggregateTypePolicies);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        name,
        batchSize,
        workers,
        minPollInterval,
        maxPollInterval,
        maxAttempts,
        backoff,
        completionMode,
        shutdownTimeout,
        ordering,
        brokerProbeBackoff,
        maxAge,
        vacuumInterval,
        eventTypePolicies,
        aggregateTypePolicies);
  }

  /** The configuration for a log line, durations written the way the CLI reads them. */
  @Override
  public String toString() {
    return "RelayConfig{name="
        + name
        + ", batchSize="
        + batchSize
        + ", workers="
        + workers
        + ", poll "
        + DurationText.of(minPollInterval)
        + " to "
        + DurationText.of(maxPollInterval)
        + ", maxAttempts="
        + maxAttempts
        + ", backoff "
        + describe(backoff)
        + ", completionMode="
        + completionMode
        + ", shutdownTimeout="
        + DurationText.of(shutdownTimeout)
        + ", ordering="
        + ordering
        + ", brokerProbeBackoff "
        + describe(brokerProbeBackoff)
        + (maxAge == null ? "" : ", maxAge " + DurationText.of(maxAge))
        + (vacuumInterval == null ? "" : ", vacuumInterval " + DurationText.of(vacuumInterval))
        + (eventTypePolicies.isEmpty() ? "" : ", eventTypeRetryPolicies " + eventTypePolicies)
        + (aggregateTypePolicies.isEmpty()
            ? ""
            : ", aggregateTypeRetryPolicies " + aggregateTypePolicies)
        + "}";
  }

  private static String describe(Backoff b) {
    return DurationText.of(b.initialDelay())
        + " to "
        + DurationText.of(b.maxDelay())
        + " x"
        + b.multiplier()
        + " jitter "
        + b.jitter();
  }

  /** The defaults. */
  public static RelayConfig defaults() {
    return builder().build();
  }

  /** Starts from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.eventTypePolicies.putAll(eventTypePolicies);
    b.aggregateTypePolicies.putAll(aggregateTypePolicies);
    return b.name(name)
        .batchSize(batchSize)
        .workers(workers)
        .minPollInterval(minPollInterval)
        .maxPollInterval(maxPollInterval)
        .maxAttempts(maxAttempts)
        .backoff(backoff)
        .completionMode(completionMode)
        .shutdownTimeout(shutdownTimeout)
        .ordering(ordering)
        .brokerProbeBackoff(brokerProbeBackoff)
        .maxAge(maxAge)
        .vacuumInterval(vacuumInterval);
  }

  /** Builds a {@link RelayConfig}. Not thread-safe. */
  public static final class Builder {
    private String name = DEFAULT_NAME;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private int workers = DEFAULT_WORKERS;
    private Duration minPollInterval = DEFAULT_MIN_POLL_INTERVAL;
    private Duration maxPollInterval = DEFAULT_MAX_POLL_INTERVAL;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Backoff backoff = Backoff.defaults();
    private CompletionMode completionMode = CompletionMode.MARK_PROCESSED;
    private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
    private Ordering ordering = Ordering.NONE;
    private Backoff brokerProbeBackoff = DEFAULT_BROKER_PROBE_BACKOFF;
    private @Nullable Duration maxAge;
    private @Nullable Duration vacuumInterval;
    private final Map<String, RetryPolicy> eventTypePolicies = new LinkedHashMap<>();
    private final Map<String, RetryPolicy> aggregateTypePolicies = new LinkedHashMap<>();

    private Builder() {}

    /** Names threads, logs and metrics. Defaults to {@value #DEFAULT_NAME}. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** Events per cycle, 1 to 10,000. Defaults to 100. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** Concurrent loops, 1 to 64. Defaults to 1. */
    public Builder workers(int workers) {
      this.workers = workers;
      return this;
    }

    /** Wait after a partial batch. Defaults to 25 ms. */
    public Builder minPollInterval(Duration minPollInterval) {
      this.minPollInterval = minPollInterval;
      return this;
    }

    /** Longest idle wait. Defaults to 1 s. */
    public Builder maxPollInterval(Duration maxPollInterval) {
      this.maxPollInterval = maxPollInterval;
      return this;
    }

    /** Attempts before dead letter, 1 to 1,000. Defaults to 10. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Delay between attempts. Defaults to {@link Backoff#defaults()}. */
    public Builder backoff(Backoff backoff) {
      this.backoff = backoff;
      return this;
    }

    /** Mark or delete published rows. Defaults to {@link CompletionMode#MARK_PROCESSED}. */
    public Builder completionMode(CompletionMode completionMode) {
      this.completionMode = completionMode;
      return this;
    }

    /** Time an in-flight batch gets at close. Defaults to 30 s. */
    public Builder shutdownTimeout(Duration shutdownTimeout) {
      this.shutdownTimeout = shutdownTimeout;
      return this;
    }

    /** Keep each aggregate's events in order. Defaults to {@link Ordering#NONE}. */
    public Builder ordering(Ordering ordering) {
      this.ordering = ordering;
      return this;
    }

    /**
     * While a publisher reports the broker unavailable, the relay claims nothing and waits this
     * long between probe batches (of at most 10 events, from one worker); the first probe the
     * broker answers resumes normal claiming. Unavailability costs events no attempt. Defaults to 1
     * s doubling to 30 s with 20% jitter.
     */
    public Builder brokerProbeBackoff(Backoff brokerProbeBackoff) {
      this.brokerProbeBackoff = brokerProbeBackoff;
      return this;
    }

    /**
     * The default policy's age limit: an event still failing once it is this old becomes a dead
     * letter at that failure, whatever attempts it has left. Null (the default) for none.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxAge(@Nullable Duration maxAge) {
      this.maxAge = maxAge == null ? null : RelayOptions.MAX_AGE.check(maxAge);
      return this;
    }

    /**
     * How often the relay runs a plain {@code VACUUM} of its events table, on a connection and a
     * thread of its own; null (the default) for none. Autovacuum visits a table at most once per
     * {@code autovacuum_naptime} (a minute by default), so at 1,000 events/s the table holds tens
     * of thousands of completed rows' dead tuples between its visits; a few seconds here keeps them
     * to a few thousand at about 30 ms of database work per run. The relay's role must own the
     * table: otherwise PostgreSQL skips it, and the relay says so once at WARN and stops trying.
     *
     * @throws IllegalArgumentException if it is not positive
     */
    public Builder vacuumInterval(@Nullable Duration vacuumInterval) {
      this.vacuumInterval =
          vacuumInterval == null ? null : RelayOptions.VACUUM_INTERVAL.check(vacuumInterval);
      return this;
    }

    /**
     * Events of {@code eventType} (exact name) are retried by {@code policy} instead of the
     * default; an event type's policy wins over its aggregate type's. Setting a type again replaces
     * its policy.
     *
     * <p>In per-aggregate ordering each event is decided by its own type's policy: an aggregate's
     * later events wait behind a failing one however long its policy retries it, and once it is a
     * dead letter they follow the ordering's rule for dead letters.
     *
     * @throws IllegalArgumentException if {@code eventType} is blank or longer than 255 characters
     */
    public Builder retryPolicy(String eventType, RetryPolicy policy) {
      eventTypePolicies.put(requireType("eventType", eventType), requirePolicy(policy));
      return this;
    }

    /**
     * Events of aggregates of {@code aggregateType} (exact name) whose event type has no policy of
     * its own are retried by {@code policy} instead of the default.
     *
     * @throws IllegalArgumentException if {@code aggregateType} is blank or longer than 255
     *     characters
     */
    public Builder aggregateRetryPolicy(String aggregateType, RetryPolicy policy) {
      aggregateTypePolicies.put(requireType("aggregateType", aggregateType), requirePolicy(policy));
      return this;
    }

    private static String requireType(String field, String type) {
      Objects.requireNonNull(type, field);
      if (type.isBlank() || type.codePointCount(0, type.length()) > MAX_TYPE_LENGTH) {
        throw new IllegalArgumentException(
            "retry policy "
                + field
                + " must be 1 to "
                + MAX_TYPE_LENGTH
                + " characters, not blank, but was '"
                + (type.length() > 40 ? type.substring(0, 40) + "…" : type)
                + "' ("
                + type.codePointCount(0, type.length())
                + " characters)");
      }
      return type;
    }

    private static RetryPolicy requirePolicy(RetryPolicy policy) {
      return Objects.requireNonNull(policy, "policy");
    }

    /**
     * Checks every value and makes the configuration.
     *
     * @throws NullPointerException if a reference is null
     * @throws IllegalArgumentException if a value is out of range; the message names the option
     */
    public RelayConfig build() {
      return new RelayConfig(this);
    }
  }
}
