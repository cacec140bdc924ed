package dev.txoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.txoutbox.RelayLog;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class DatabaseOutageTest {

  private final AtomicLong now = new AtomicLong();
  private final DatabaseOutage outage = new DatabaseOutage("test", now::get);
  @RegisterExtension final RelayLog logs = new RelayLog();

  private static RuntimeException poolTimeout() {
    return new DataAccessException(
        "Error getting connection from data source HikariDataSource (relay)",
        new SQLTransientConnectionException(
            "relay - Connection is not available, request timed out after 30000ms",
            "08001",
            new java.net.ConnectException("Connection refused")));
  }

  private List<String> lines(Level level) {
    return logs.events().stream()
        .filter(e -> e.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  void anOutageIsOneWarningWithTheCauseThenASummaryEveryIntervalThenOneInfo() {
    outage.succeeded(); // no outage: nothing to say
    for (int i = 0; i < 100; i++) { // 100 cycles in 100 s
      outage.failed(poolTimeout());
      now.addAndGet(Duration.ofSeconds(1).toNanos());
    }
    outage.succeeded();
    outage.succeeded();

    List<String> warnings = lines(Level.WARN);
    assertThat(warnings).hasSize(1 + 3); // 100 s: summaries at 30, 60 and 90 s
    assertThat(warnings.get(0))
        .contains("database unavailable")
        .contains("request timed out after 30000ms")
        .contains("caused by java.net.ConnectException: Connection refused")
        .doesNotContain("Error getting connection");
    assertThat(warnings.subList(1, 4))
        .allMatch(w -> w.contains("database still unavailable after"));
    assertThat(lines(Level.INFO))
        .containsExactly("relay test: database available again after 1m 40s (100 failed cycles)");
    assertThat(logs.events())
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
        .allMatch(e -> e.getThrowableProxy() == null);
  }

  @Test
  void aSecondOutageIsAnnouncedAgainWithItsOwnCount() {
    outage.failed(poolTimeout());
    outage.succeeded();
    now.addAndGet(Duration.ofSeconds(5).toNanos());
    outage.failed(poolTimeout());
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    outage.failed(poolTimeout());
    outage.succeeded();

    assertThat(lines(Level.WARN)).hasSize(2);
    assertThat(lines(Level.INFO))
        .containsExactly(
            "relay test: database available again after 0ms (1 failed cycles)",
            "relay test: database available again after 2s (2 failed cycles)");
  }
}
