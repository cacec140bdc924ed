package dev.txoutbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Both kinds of logical-replication server: logical WAL, a slot to read, and their lifecycles. */
class LogicalServerTest {

  @Test
  void theSharedServerIsOnePerJvmWithLogicalWalAndRoomForSlots() throws SQLException {
    LogicalServer server = LogicalServer.shared();
    assertThat(LogicalServer.shared()).isSameAs(server);
    assertThat(setting(server, "wal_level")).isEqualTo("logical");
    assertThat(setting(server, "max_replication_slots"))
        .isEqualTo(Integer.toString(LogicalServer.MAX_REPLICATION_SLOTS));
    assertAReplicationConnectionMakesASlot(server, "logical_server_test_shared");
    server.close(); // nothing for the shared server
    assertThat(setting(server, "wal_level")).isEqualTo("logical");
    assertThatThrownBy(server::stop)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("stop() must be called on a cluster(..) but was called on the shared server");
  }

  @Test
  void aClusterStopsStartsOnTheSamePortAndIsDeletedWhenClosed() throws Exception {
    Assumptions.assumeTrue(LogicalServer.available(15), "no PostgreSQL 15 binaries installed");
    Path dir;
    try (LogicalServer cluster = LogicalServer.cluster(15, Map.of("work_mem", "'8MB'"))) {
      assertThat(setting(cluster, "wal_level")).isEqualTo("logical");
      assertThat(setting(cluster, "work_mem")).isEqualTo("8MB");
      assertThat(setting(cluster, "server_version_num")).startsWith("15");
      assertAReplicationConnectionMakesASlot(cluster, "logical_server_test_cluster");
      dir = Path.of(setting(cluster, "data_directory")).getParent();

      cluster.stop();
      assertThatThrownBy(() -> setting(cluster, "wal_level")).isInstanceOf(SQLException.class);
      cluster.start();
      assertThat(setting(cluster, "port")).isEqualTo(Integer.toString(cluster.port()));
    }
    assertThat(Files.exists(dir)).as("deleted by close()").isFalse();
  }

  private static void assertAReplicationConnectionMakesASlot(LogicalServer server, String slot)
      throws SQLException {
    try (Connection c = server.replication();
        Statement s = c.createStatement()) {
      s.execute("CREATE_REPLICATION_SLOT " + slot + " TEMPORARY LOGICAL pgoutput");
    }
  }

  private static String setting(LogicalServer server, String name) throws SQLException {
    try (Connection c = server.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
