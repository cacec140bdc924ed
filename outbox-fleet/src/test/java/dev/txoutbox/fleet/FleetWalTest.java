package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.testing.LogicalServer;
import dev.txoutbox.testing.RecordingPublisher;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

/**
 * A WAL outbox in the fleet: its new owner starts the WAL relay only once the replication slot is
 * free. The outbox lives on outbox-testing's shared {@link LogicalServer} (the shared service's
 * configuration is never touched); the control database on the local service.
 */
class FleetWalTest {

  private static final Duration BOUND = Duration.ofSeconds(60);
  private static FleetDatabases databases;
  private static LogicalServer server;
  private static DataSource control;

  @BeforeAll
  static void start() throws Exception {
    server = LogicalServer.shared();
    databases = new FleetDatabases();
    control = FleetDatabases.dataSource(databases.create("walcontrol"));
    OutboxSchema.migrate(server.dataSource(), "w");
  }

  @AfterAll
  static void stop() throws Exception {
    databases.close();
  }

  private static FleetNode node(String id, String schema, RecordingPublisher publisher) {
    FleetNode node =
        FleetNode.builder()
            .controlDataSource(control)
            .controlSchema(schema)
            .nodeId(id)
            .leaseTtl(Duration.ofSeconds(2))
            .scanInterval(Duration.ofMillis(300))
            .poolSize(2)
            .walSweepInterval(Duration.ofSeconds(30))
            .publishers((outbox, settings, client) -> publisher)
            .relayConfig(RelayConfig.builder().shutdownTimeout(Duration.ofSeconds(2)).build())
            .build();
    node.start();
    return node;
  }

  private static Assignment.State state(FleetNode node) {
    List<Assignment> held = node.assignments();
    return held.isEmpty() ? null : held.get(0).state();
  }

  @Test
  void aNewOwnerWaitsForTheSlotToBeFree() throws Exception {
    String schema = "fleet_wal";
    FleetSchema.migrate(control, schema);
    FleetRegistry.create(control, schema)
        .add(
            FleetOutbox.builder("w")
                .jdbcUrl(server.jdbcUrl())
                .user("postgres")
                .schema("w")
                .kind(OutboxKind.WAL)
                .publisher("recording")
                .build());
    RecordingPublisher publisher = new RecordingPublisher();
    try (FleetNode one = node("one", schema, publisher)) {
      await().atMost(BOUND).until(() -> state(one) == Assignment.State.RUNNING);
      List<UUID> first = insert(1);
      await().atMost(BOUND).until(() -> publisher.publishedIds().containsAll(first));
    } // one hands the outbox over cleanly: its WAL relay is closed, the slot free
    assertThat(slotActive()).isFalse();

    // A reader that lingers on the slot, as an old walsender can until wal_sender_timeout.
    try (Connection lingering = server.replication();
        PGReplicationStream stream =
            lingering
                .unwrap(PGConnection.class)
                .getReplicationAPI()
                .replicationStream()
                .logical()
                .withSlotName("txoutbox_w")
                .withSlotOption("proto_version", "1")
                .withSlotOption("publication_names", "txoutbox_w")
                .start()) {
      await().atMost(BOUND).until(FleetWalTest::slotActive);
      try (FleetNode two = node("two", schema, publisher)) {
        await().atMost(BOUND).until(() -> state(two) == Assignment.State.WAITING_FOR_SLOT);
        List<UUID> second = insert(1);
        stream.close();
        lingering.close(); // the slot is free: two starts reading it
        await().atMost(BOUND).until(() -> state(two) == Assignment.State.RUNNING);
        await().atMost(BOUND).until(() -> publisher.publishedIds().containsAll(second));
        assertThat(two.assignments().get(0).term()).isEqualTo(2);
      }
    }
  }

  private static List<UUID> insert(int count) throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection c = server.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO w.outbox_events (id, aggregate_type, aggregate_id, event_type, payload)"
                    + " VALUES (?, 'order', '1', 'order.created', '{}')")) {
      ps.setObject(1, id);
      ps.executeUpdate();
    }
    return List.of(id);
  }

  private static boolean slotActive() throws Exception {
    try (Connection c = server.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT active FROM pg_replication_slots WHERE slot_name = 'txoutbox_w'");
        ResultSet rs = ps.executeQuery()) {
      return rs.next() && rs.getBoolean(1);
    }
  }
}
