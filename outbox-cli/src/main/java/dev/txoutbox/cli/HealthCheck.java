package dev.txoutbox.cli;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * Whether the relay can work: it is running and the database answers {@code select 1} within a
 * short timeout, on a connection of its own (so a busy pool or a stuck worker does not mask an
 * outage). Thread-safe.
 */
final class HealthCheck {

  /** One check's outcome. */
  record Result(boolean healthy, String detail) {}

  private final DataSource dataSource;
  private final int timeoutSeconds;
  private final BooleanSupplier running;

  HealthCheck(DataSource dataSource, Duration timeout, BooleanSupplier running) {
    this.dataSource = dataSource;
    this.timeoutSeconds = (int) Math.max(1, timeout.toSeconds());
    this.running = running;
  }

  Result check() {
    if (!running.getAsBoolean()) {
      return new Result(false, "relay not running");
    }
    try (Connection c = dataSource.getConnection()) {
      if (!c.isValid(timeoutSeconds)) { // the driver's own round trip, bounded by the timeout
        return new Result(false, "database unreachable: no answer within " + timeoutSeconds + " s");
      }
      return new Result(true, "ok");
    } catch (SQLException e) {
      return new Result(false, "database unreachable: " + DatabaseTarget.reason(e));
    }
  }
}
