package dev.txoutbox.cli;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * Whether the relay can work: it is running and the database answers a validation round trip within
 * the timeout, on a connection borrowed from the relay's pool (never a new connection per request).
 * At most one check runs at a time, on a thread of its own; requests arriving meanwhile share its
 * outcome, so a flood of probes costs one connection and one round trip. A check that outlasts the
 * timeout reports unhealthy at once and carries on in the background. Thread-safe.
 */
final class HealthCheck implements AutoCloseable {

  /** One check's outcome. */
  record Result(boolean healthy, String detail) {}

  private final DataSource pool;
  private final Duration timeout;
  private final BooleanSupplier running;
  private final String notRunning;
  private final ExecutorService executor;
  private CompletableFuture<Result> inFlight; // guarded by this

  HealthCheck(DataSource pool, Duration timeout, BooleanSupplier running) {
    this(pool, timeout, running, "relay not running");
  }

  /**
   * @param notRunning the detail reported while {@code running} is false
   */
  HealthCheck(DataSource pool, Duration timeout, BooleanSupplier running, String notRunning) {
    this.notRunning = notRunning;
    this.pool = pool;
    this.timeout = timeout;
    this.running = running;
    this.executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "txoutbox-health");
              t.setDaemon(true);
              return t;
            });
  }

  Result check() {
    if (!running.getAsBoolean()) {
      return new Result(false, notRunning);
    }
    try {
      return current().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return new Result(
          false, "database unreachable: no answer within " + Durations.format(timeout));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(false, "interrupted");
    } catch (ExecutionException e) {
      return new Result(
          false, "health check failed: " + OutputMasking.mask(e.getCause().toString()));
    }
  }

  private synchronized CompletableFuture<Result> current() {
    if (inFlight == null || inFlight.isDone()) {
      inFlight = CompletableFuture.supplyAsync(this::probe, executor);
    }
    return inFlight;
  }

  private Result probe() {
    int seconds = (int) Math.max(1, timeout.toSeconds());
    try (Connection c = pool.getConnection()) {
      if (!c.isValid(seconds)) { // the driver's own round trip, bounded by the timeout
        return new Result(
            false, "database unreachable: no answer within " + Durations.format(timeout));
      }
      return new Result(true, "ok");
    } catch (SQLException e) {
      return new Result(false, "database unreachable: " + DatabaseTarget.reason(e));
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
