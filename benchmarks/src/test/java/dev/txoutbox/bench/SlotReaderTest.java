package dev.txoutbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.testing.LogicalServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bare slot reader, the WAL benchmark's bound, on a {@link LogicalServer}: it counts exactly
 * the inserts of the published table, in the drain's way and in the background, and confirms what
 * it read, so that the bound it gives is of the same work as the WAL relay's reading.
 */
class SlotReaderTest {

  private static LogicalServer server;
  private static String url;

  @BeforeAll
  static void startServer() throws Exception {
    server = WalBenchmark.logicalServer(Map.of());
    url = server.jdbcUrl("postgres");
    sql(
        "CREATE TABLE published (id int PRIMARY KEY)",
        "CREATE TABLE other (id int PRIMARY KEY)",
        "CREATE PUBLICATION reader_pub FOR TABLE published WITH (publish = 'insert')");
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void countsTheInsertsOfThePublishedTableOnlyAndConfirmsTheLastCommitRead() throws Exception {
    sql("SELECT pg_create_logical_replication_slot('drain', 'pgoutput')");
    // 3 transactions with 5 inserts of the published table, and others the publication leaves out.
    sql(
        "INSERT INTO published SELECT g FROM generate_series(1, 3) g",
        "INSERT INTO other SELECT g FROM generate_series(1, 50) g",
        "INSERT INTO published VALUES (4), (5)");
    String last = one("SELECT pg_current_wal_lsn()::text");

    try (SlotReader reader =
        SlotReader.open(url, WalBenchmark.credentials(), "drain", "reader_pub")) {
      assertThat(reader.readInserts(5, Duration.ofSeconds(30))).isTrue();
      assertThat(reader.inserts()).isEqualTo(5);
      // Nothing more comes: asking for a sixth waits out its time and says so.
      assertThat(reader.readInserts(6, Duration.ofMillis(500))).isFalse();
      assertThat(reader.inserts()).isEqualTo(5);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                "true"
                    .equals(
                        one(
                            "SELECT (confirmed_flush_lsn >= '"
                                + last
                                + "'::pg_lsn)::text FROM pg_replication_slots"
                                + " WHERE slot_name = 'drain' AND NOT active")));
    sql("SELECT pg_drop_replication_slot('drain')");
  }

  @Test
  void readsInTheBackgroundUntilClosed() throws Exception {
    sql("SELECT pg_create_logical_replication_slot('beside', 'pgoutput')");
    try (SlotReader reader =
        SlotReader.open(url, WalBenchmark.credentials(), "beside", "reader_pub")) {
      reader.readInBackground();
      for (int i = 100; i < 120; i++) {
        sql("INSERT INTO published VALUES (" + i + ")");
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> reader.inserts() == 20);
      reader.close();
      sql("INSERT INTO published VALUES (200)");
      // Closed: the stream ends, the slot is free and the new insert is not read.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  "false"
                      .equals(
                          one(
                              "SELECT active::text FROM pg_replication_slots"
                                  + " WHERE slot_name = 'beside'")));
      assertThat(reader.inserts()).isEqualTo(20);
    }
    sql("SELECT pg_drop_replication_slot('beside')");
  }

  private static void sql(String... statements) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", "");
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }

  private static String one(String query) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", "");
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(query)) {
      return r.next() ? r.getString(1) : null;
    }
  }
}
