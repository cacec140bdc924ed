package dev.txoutbox.fleet;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;

/**
 * A fleet node in a process of its own, for {@link FleetKillTest}: {@code FleetNodeMain
 * <control-url> <control-schema> <node-id>}. Its "broker" is the table {@code published} of the
 * control database (event id, outbox, node, time), so the test counts every delivery by event id.
 * SIGTERM closes the node cleanly; SIGKILL leaves its leases to expire.
 */
public final class FleetNodeMain {

  private FleetNodeMain() {}

  public static void main(String[] args) throws Exception {
    DataSource control = FleetDatabases.dataSource(args[0]);
    String node = args[2];
    FleetNode fleet =
        FleetNode.builder()
            .controlDataSource(control)
            .controlSchema(args[1])
            .nodeId(node)
            .leaseTtl(FleetKillTest.TTL)
            .scanInterval(FleetKillTest.SCAN)
            .poolSize(2)
            .publishers(
                (outbox, settings, client) -> new TablePublisher(control, outbox.name(), node))
            .relayConfig(
                RelayConfig.builder()
                    .batchSize(FleetKillTest.BATCH)
                    .minPollInterval(Duration.ofMillis(20))
                    .maxPollInterval(Duration.ofMillis(100))
                    .shutdownTimeout(Duration.ofSeconds(5))
                    .build())
            .build();
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  fleet.close();
                  closed.countDown();
                }));
    fleet.start();
    System.out.println("node " + node + " started");
    closed.await();
  }

  /** Records each message in {@code published}, then acknowledges it. */
  static final class TablePublisher implements Publisher {
    private final DataSource control;
    private final String outbox;
    private final String node;

    TablePublisher(DataSource control, String outbox, String node) {
      this.control = control;
      this.outbox = outbox;
      this.node = node;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) {
      List<PublishResult> results = new ArrayList<>();
      try (Connection c = control.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO published (event_id, outbox, node) VALUES (?, ?, ?)")) {
        for (OutboxMessage m : messages) {
          ps.setObject(1, m.id());
          ps.setString(2, outbox);
          ps.setString(3, node);
          ps.addBatch();
        }
        ps.executeBatch();
        messages.forEach(m -> results.add(PublishResult.published()));
      } catch (SQLException e) {
        messages.forEach(m -> results.add(PublishResult.brokerUnavailable(e.getMessage())));
      }
      return results;
    }
  }
}
