package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The registry against a control database of the test's own on the local PostgreSQL. */
class FleetRegistryTest {

  private static FleetDatabases databases;
  private static DataSource control;
  private FleetRegistry registry;
  private String schema;

  @BeforeAll
  static void createDatabase() throws Exception {
    databases = new FleetDatabases();
    control = FleetDatabases.dataSource(databases.create("registry"));
  }

  @AfterAll
  static void dropDatabase() throws Exception {
    databases.close();
  }

  @BeforeEach
  void migrate() {
    schema = "reg_" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(FleetSchema.migrate(control, schema)).isEqualTo(1);
    assertThat(FleetSchema.migrate(control, schema)).isZero();
    registry = FleetRegistry.create(control, schema);
  }

  private static FleetOutbox entry(String name) {
    return FleetOutbox.builder(name)
        .jdbcUrl("jdbc:postgresql://db-" + name + ":5432/app?sslmode=require")
        .user("relay")
        .password("file:/run/secrets/" + name)
        .schema("billing")
        .tablePrefix("bill_")
        .kind(OutboxKind.WAL)
        .slotName("slot_" + name.replace('-', '_'))
        .publisher("kafka")
        .publisherSetting("bootstrap-servers", "kafka:9092")
        .publisherSetting("topic.order", "orders")
        .publisherSetting("sasl-password", "env:KAFKA_PASSWORD")
        .weight(3)
        .build();
  }

  @Test
  void storesEveryFieldAndAFreeLease() throws Exception {
    FleetOutbox added = registry.add(entry("tenant-a"));
    assertThat(added.version()).isEqualTo(1);
    assertThat(registry.list()).containsExactly(added);
    assertThat(registry.get("tenant-a")).contains(added);
    try (Connection c = control.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT owner, term FROM \""
                    + schema
                    + "\".fleet_leases WHERE outbox = 'tenant-a'");
        ResultSet rs = ps.executeQuery()) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isNull();
      assertThat(rs.getLong(2)).isZero();
    }
  }

  @Test
  void updatesBumpTheVersionAndRemoveDropsTheLease() throws Exception {
    FleetOutbox added = registry.add(entry("tenant-a"));
    FleetOutbox updated = registry.update(added.toBuilder().weight(7).build());
    assertThat(updated.version()).isEqualTo(2);
    assertThat(registry.get("tenant-a").orElseThrow().weight()).isEqualTo(7);
    assertThat(registry.setEnabled("tenant-a", false)).isTrue();
    assertThat(registry.get("tenant-a").orElseThrow().enabled()).isFalse();
    assertThat(registry.get("tenant-a").orElseThrow().version()).isEqualTo(3);
    assertThat(registry.remove("tenant-a")).isTrue();
    assertThat(registry.remove("tenant-a")).isFalse();
    assertThat(registry.list()).isEmpty();
    try (Connection c = control.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM \"" + schema + "\".fleet_leases");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      assertThat(rs.getInt(1)).isZero();
    }
  }

  @Test
  void refusesADuplicateAndAnUpdateOfNothing() {
    registry.add(entry("tenant-a"));
    assertThatThrownBy(() -> registry.add(entry("tenant-a")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("outbox tenant-a must not exist to be added but does");
    assertThatThrownBy(() -> registry.update(entry("tenant-b")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("outbox tenant-b must exist to be updated but does not");
    assertThat(registry.list()).extracting(FleetOutbox::name).containsExactly("tenant-a");
  }

  @Test
  void storesNoSecret() throws Exception {
    registry.add(entry("tenant-a"));
    try (Connection c = control.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT password_ref, publisher_settings->>'sasl-password' FROM \""
                    + schema
                    + "\".fleet_outboxes");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("file:/run/secrets/tenant-a");
      assertThat(rs.getString(2)).isEqualTo("env:KAFKA_PASSWORD");
    }
  }
}
