package dev.txoutbox.internal.heartbeat;

import static dev.txoutbox.schema.model.tables.OutboxRelays.OUTBOX_RELAYS;

import dev.txoutbox.internal.relay.RelayThreads;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.SecretMasking;
import java.net.InetAddress;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running relay's row in {@code <prefix>outbox_relays}: one UPSERT of its own row every {@link
 * #DEFAULT_INTERVAL} from a daemon thread of its own, never on the path of an event. The relay
 * calls {@link #cycleCompleted()} at the end of each cycle (a volatile write) and {@link #close()}
 * when it stops, which stamps {@code stopped_at}. Times are the database's {@code now()}: the last
 * cycle is written as {@code now()} less its age on this JVM's monotonic clock, so no two clocks
 * need agree. Each writer also deletes, at most {@value #DELETE_LIMIT} at a time and once an hour,
 * the rows of relays not seen for {@link #DEFAULT_RETENTION}.
 *
 * <p>A failed beat (the database down, the table not migrated yet) is logged once at WARN, then at
 * DEBUG until a beat succeeds again; it never reaches the relay.
 *
 * <pre>{@code
 * RelayHeartbeat beat = RelayHeartbeat.start(dsl, tables, "billing", Kind.POLLING, settings);
 * ... beat.cycleCompleted();   // after each cycle
 * beat.close();                // when the relay stops
 * }</pre>
 *
 * <p>This class is thread-safe.
 */
public final class RelayHeartbeat implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay.heartbeat");

  /** How often a relay writes its row: every 10 seconds. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

  /** Rows of relays not seen for this long are deleted: 7 days. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

  /** How often a writer deletes old rows: hourly (and at its first beat). */
  static final Duration CLEANUP_EVERY = Duration.ofHours(1);

  /** Most rows one cleanup deletes: 100. */
  static final int DELETE_LIMIT = 100;

  /** Longest settings summary stored: 2,000 characters; a longer one is cut. */
  static final int MAX_SETTINGS_LENGTH = 2_000;

  /** How long one beat's statements may run: 5 seconds. */
  static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(5);

  /** How long {@link #close()} waits for the last beat: 2 seconds. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  /** What kind of relay beats. */
  public enum Kind {
    /** The polling relay ({@code OutboxRelay}). */
    POLLING,
    /** The WAL relay (outbox-wal). */
    WAL;

    String column() {
      return switch (this) {
        case POLLING -> "polling";
        case WAL -> "wal";
      };
    }
  }

  private final DSLContext dsl;
  private final OutboxTables tables;
  private final String name;
  private final Kind kind;
  private final String settings;
  private final Duration interval;
  private final LongSupplier nanoTime;
  private final UUID id = UUID.randomUUID();
  private final @Nullable ScheduledExecutorService thread;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** {@link #nanoTime} at the end of the last cycle; {@link Long#MIN_VALUE} before the first. */
  private volatile long lastCycle = Long.MIN_VALUE;

  // Written by the beating thread only (or a test's), read under the same discipline.
  private boolean failing;
  private long lastCleanup = Long.MIN_VALUE;
  private @Nullable String host;

  RelayHeartbeat(
      DSLContext dsl,
      OutboxTables tables,
      String name,
      Kind kind,
      String settings,
      Duration interval,
      LongSupplier nanoTime,
      boolean ownThread) {
    this(dsl, tables, name, kind, settings, interval, nanoTime, ownThread ? threadsOf(name) : null);
  }

  private static RelayThreads threadsOf(String name) {
    return RelayThreads.forRelay(name, null);
  }

  private RelayHeartbeat(
      DSLContext dsl,
      OutboxTables tables,
      String name,
      Kind kind,
      String settings,
      Duration interval,
      LongSupplier nanoTime,
      @Nullable RelayThreads threads) {
    this.tables = Objects.requireNonNull(tables, "tables");
    this.dsl =
        DSL.using(
            Objects.requireNonNull(dsl, "dsl")
                .configuration()
                .derive(tables.settings(dsl.settings())));
    this.name = Objects.requireNonNull(name, "name");
    this.kind = Objects.requireNonNull(kind, "kind");
    String masked = String.valueOf(SecretMasking.maskText(Objects.requireNonNull(settings)));
    this.settings =
        masked.length() <= MAX_SETTINGS_LENGTH
            ? masked
            : masked.substring(0, MAX_SETTINGS_LENGTH - 1) + "…";
    if (interval.toMillis() < 1 || interval.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "interval must be between 1ms and " + Integer.MAX_VALUE + "ms but was " + interval);
    }
    this.interval = interval;
    this.nanoTime = nanoTime;
    this.thread =
        threads != null
            ? Executors.newSingleThreadScheduledExecutor(threads.factory("heartbeat"))
            : null;
  }

  /**
   * Starts beating for the relay {@code name} every {@link #DEFAULT_INTERVAL}, the first beat at
   * once, on a daemon thread {@code outbox-relay-<name>-heartbeat}.
   *
   * @param dsl the relay's context; rendered onto {@code tables} here
   * @param tables the outbox the relay publishes
   * @param name the relay's name
   * @param kind what relay it is
   * @param settings a short summary of its configuration, masked here again ({@link
   *     SecretMasking#maskText}) and cut at {@value #MAX_SETTINGS_LENGTH} characters
   * @throws NullPointerException if an argument is null
   */
  public static RelayHeartbeat start(
      DSLContext dsl, OutboxTables tables, String name, Kind kind, String settings) {
    return start(dsl, tables, name, kind, settings, threadsOf(name));
  }

  /**
   * As {@link #start(DSLContext, OutboxTables, String, Kind, String)}, on a thread of {@code
   * threads} (role {@code heartbeat}).
   */
  public static RelayHeartbeat start(
      DSLContext dsl,
      OutboxTables tables,
      String name,
      Kind kind,
      String settings,
      RelayThreads threads) {
    RelayHeartbeat beat =
        new RelayHeartbeat(
            dsl,
            tables,
            name,
            kind,
            settings,
            DEFAULT_INTERVAL,
            System::nanoTime,
            Objects.requireNonNull(threads, "threads"));
    beat.schedule();
    return beat;
  }

  private void schedule() {
    Objects.requireNonNull(thread)
        .scheduleWithFixedDelay(this::beatQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The relay completed a cycle now; the next beat writes it. Cheap: one volatile write. */
  public void cycleCompleted() {
    lastCycle = nanoTime.getAsLong();
  }

  /** This run's row id. */
  UUID id() {
    return id;
  }

  /** One beat; its failure is logged (once, then at DEBUG), never thrown. */
  void beatQuietly() {
    try {
      beat(false);
      if (failing) {
        failing = false;
        log.info("relay {}: heartbeat written again to {}", name, tables);
      }
    } catch (RuntimeException e) {
      if (!failing) {
        failing = true;
        log.warn(
            "relay {}: its heartbeat to {}.{} failed; the relay goes on, and a console shows it"
                + " as not seen until a beat succeeds (is the outbox schema migrated to version"
                + " 3?): {}",
            name,
            tables.schema(),
            tables.relaysTable(),
            String.valueOf(SecretMasking.maskText(e.getMessage())));
      } else {
        log.debug("relay {}: heartbeat failed again: {}", name, e.toString());
      }
    }
  }

  /**
   * Writes this relay's row in one short transaction under {@link #STATEMENT_TIMEOUT}, and deletes
   * old rows when the hourly cleanup is due.
   *
   * @param stopped whether the relay stops (stamps {@code stopped_at})
   */
  void beat(boolean stopped) {
    if (host == null) {
      host = hostName();
    }
    long now = nanoTime.getAsLong();
    long cycle = lastCycle;
    Field<OffsetDateTime> current = DSL.currentOffsetDateTime();
    Field<OffsetDateTime> lastCycleAt =
        cycle == Long.MIN_VALUE
            ? DSL.inline((OffsetDateTime) null, OUTBOX_RELAYS.LAST_CYCLE_AT)
            : DSL.field(
                "{0} - make_interval(secs => {1})",
                OffsetDateTime.class, current, DSL.val(Math.max(0, now - cycle) / 1e9));
    Field<OffsetDateTime> stoppedAt =
        stopped ? current : DSL.inline((OffsetDateTime) null, OUTBOX_RELAYS.STOPPED_AT);
    boolean cleanup = lastCleanup == Long.MIN_VALUE || now - lastCleanup >= CLEANUP_EVERY.toNanos();
    String hostName = Objects.requireNonNull(host);
    dsl.transaction(
        tx -> {
          DSLContext t = tx.dsl();
          t.execute("SET LOCAL statement_timeout = " + STATEMENT_TIMEOUT.toMillis());
          t.insertInto(OUTBOX_RELAYS)
              .set(OUTBOX_RELAYS.ID, id)
              .set(OUTBOX_RELAYS.RELAY_NAME, name)
              .set(OUTBOX_RELAYS.KIND, kind.column())
              .set(OUTBOX_RELAYS.HOST, hostName)
              .set(OUTBOX_RELAYS.PID, ProcessHandle.current().pid())
              .set(OUTBOX_RELAYS.SETTINGS, settings)
              .set(OUTBOX_RELAYS.BEAT_INTERVAL_MS, (int) interval.toMillis())
              .set(OUTBOX_RELAYS.STARTED_AT, current)
              .set(OUTBOX_RELAYS.LAST_BEAT_AT, current)
              .set(OUTBOX_RELAYS.LAST_CYCLE_AT, lastCycleAt)
              .set(OUTBOX_RELAYS.STOPPED_AT, stoppedAt)
              .onConflict(OUTBOX_RELAYS.ID)
              .doUpdate()
              .set(OUTBOX_RELAYS.LAST_BEAT_AT, current)
              .set(OUTBOX_RELAYS.LAST_CYCLE_AT, lastCycleAt)
              .set(OUTBOX_RELAYS.STOPPED_AT, stoppedAt)
              .execute();
          if (cleanup) {
            int deleted =
                t.deleteFrom(OUTBOX_RELAYS)
                    .where(
                        OUTBOX_RELAYS.ID.in(
                            DSL.select(OUTBOX_RELAYS.ID)
                                .from(OUTBOX_RELAYS)
                                .where(
                                    OUTBOX_RELAYS.LAST_BEAT_AT.lt(
                                        DSL.field(
                                            "now() - make_interval(secs => {0})",
                                            OffsetDateTime.class,
                                            DSL.val((double) DEFAULT_RETENTION.toSeconds()))))
                                .limit(DELETE_LIMIT)))
                    .execute();
            if (deleted > 0) {
              log.info(
                  "relay {}: deleted {} heartbeat rows of relays not seen for {}",
                  name,
                  deleted,
                  DEFAULT_RETENTION);
            }
          }
        });
    if (cleanup) {
      lastCleanup = now;
    }
  }

  /** The host name, from {@code HOSTNAME} (a pod's name) or the resolver; never throws. */
  private static String hostName() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return cut(env.strip());
    }
    try {
      return cut(InetAddress.getLocalHost().getHostName());
    } catch (Exception e) {
      return "unknown";
    }
  }

  private static String cut(String s) {
    return s.length() <= 255 ? s : s.substring(0, 255);
  }

  /**
   * Stops beating and stamps {@code stopped_at} with a last beat, waiting at most {@link
   * #CLOSE_WAIT} for it. Idempotent; never throws.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true) || thread == null) {
      return;
    }
    boolean interrupted = false;
    try {
      thread.submit(
          () -> {
            try {
              beat(true);
            } catch (RuntimeException e) {
              log.debug("relay {}: last heartbeat failed: {}", name, e.toString());
            }
          });
      thread.shutdown();
      if (!thread.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      interrupted = true;
      thread.shutdownNow();
    } catch (RuntimeException e) {
      thread.shutdownNow();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
