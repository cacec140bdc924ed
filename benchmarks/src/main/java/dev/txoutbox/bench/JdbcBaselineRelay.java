package dev.txoutbox.bench;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/**
 * The reference points: a hand-written JDBC relay doing the same cycle as txoutbox (the same claim
 * statement, FOR UPDATE SKIP LOCKED, then one UPDATE or DELETE ... WHERE id = ANY(?), commit) with
 * no publisher at all; the same claim and completion as one statement in a tight loop (the
 * database's ceiling); and the seed article's relay, one UPDATE per claimed event. Plain SQL on
 * purpose: it measures what the database allows, without jOOQ or the relay's own work.
 */
final class JdbcBaselineRelay {

  private static final String COLUMNS =
      "id, seq, aggregate_type, aggregate_id, event_type, payload, headers, created_at, attempts";
  private static final String PENDING = pending(BenchDatabase.SCHEMA);

  private static String pending(String schema) {
    return " from "
        + schema
        + ".outbox_events where processed_at is null and dead_lettered_at is null";
  }

  /**
   * The relay's claim (RelayStore.claimQuery): the due waiting rows by retry_after from
   * outbox_events_waiting_idx, then ready rows by seq from outbox_events_ready_idx. The schema has
   * no index for a single "retry_after is null or retry_after <= now() order by seq" query any
   * more, which sorted the whole backlog on every claim.
   */
  private static final String CLAIM = claimSql(BenchDatabase.SCHEMA);

  /** The relay's claim statement on the outbox in {@code schema}; two {@code int} limits. */
  static String claimSql(String schema) {
    return "with due as (select "
        + COLUMNS
        + pending(schema)
        + " and retry_after is not null and retry_after <= now() order by retry_after limit ?"
        + " for update skip locked), ready as (select "
        + COLUMNS
        + pending(schema)
        + " and retry_after is null order by seq limit (? - (select count(*) from due))"
        + " for update skip locked) select * from due union all select * from ready";
  }

  private static final String MARK =
      "update "
          + BenchDatabase.SCHEMA
          + ".outbox_events set processed_at = now() where id = any(?)";
  private static final String DELETE =
      "delete from " + BenchDatabase.SCHEMA + ".outbox_events where id = any(?)";

  /**
   * The database's ceiling: the claim and the completion as one statement (the claim's rows locked
   * and completed in a CTE, nothing sent back but the count), in auto-commit.
   */
  private static String ceiling(boolean delete) {
    String claimed =
        "with due as (select id"
            + PENDING
            + " and retry_after is not null and retry_after <= now() order by retry_after limit ?"
            + " for update skip locked), ready as (select id"
            + PENDING
            + " and retry_after is null order by seq limit (? - (select count(*) from due))"
            + " for update skip locked) ";
    String ids = " where id in (select id from due union all select id from ready)";
    return claimed
        + (delete
            ? "delete from " + BenchDatabase.SCHEMA + ".outbox_events" + ids
            : "update " + BenchDatabase.SCHEMA + ".outbox_events set processed_at = now()" + ids);
  }

  private static final String MARK_ONE =
      "update " + BenchDatabase.SCHEMA + ".outbox_events set processed_at = now() where id = ?";

  /** How a worker completes what it claimed. */
  enum Cycle {
    /** Claim, one {@code UPDATE … WHERE id = ANY(?)}, commit: the relay's cycle. */
    BATCH,
    /**
     * The same cycle, reading every column of each claimed row into a {@link Message}, as any relay
     * must that hands a publisher the event (its type, aggregate, payload, headers, time): the
     * least Java work per event for a relay with a publisher.
     */
    MESSAGES,
    /** Claim and complete as one statement in auto-commit: the database's ceiling. */
    CEILING,
    /** Claim, one {@code UPDATE … WHERE id = ?} per event, commit: the seed article's relay. */
    PER_ROW
  }

  private JdbcBaselineRelay() {}

  /**
   * Drains the outbox with {@code workers} threads doing {@code cycle}; returns the number of
   * events completed.
   */
  static long drain(DataSource dataSource, Cycle cycle, int workers, int batchSize, boolean delete)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      List<Future<Long>> results = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        results.add(
            pool.submit(
                () ->
                    switch (cycle) {
                      case BATCH -> loop(dataSource, batchSize, delete, false);
                      case MESSAGES -> loop(dataSource, batchSize, delete, true);
                      case CEILING -> ceilingLoop(dataSource, batchSize, delete);
                      case PER_ROW -> perRowLoop(dataSource, batchSize);
                    }));
      }
      long total = 0;
      for (Future<Long> f : results) {
        total += f.get();
      }
      return total;
    } finally {
      pool.shutdownNow();
    }
  }

  private static long ceilingLoop(DataSource dataSource, int batchSize, boolean delete)
      throws SQLException {
    long total = 0;
    try (Connection c = dataSource.getConnection();
        PreparedStatement both = c.prepareStatement(ceiling(delete))) {
      c.setAutoCommit(true);
      while (true) {
        both.setInt(1, batchSize);
        both.setInt(2, batchSize);
        int n = both.executeUpdate();
        if (n == 0) {
          return total;
        }
        total += n;
      }
    }
  }

  private static long perRowLoop(DataSource dataSource, int batchSize) throws SQLException {
    long total = 0;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement claim = c.prepareStatement(CLAIM);
          PreparedStatement markOne = c.prepareStatement(MARK_ONE)) {
        while (true) {
          List<UUID> ids = claim(claim, batchSize);
          if (ids.isEmpty()) {
            c.commit();
            return total;
          }
          for (UUID id : ids) {
            markOne.setObject(1, id);
            markOne.executeUpdate();
          }
          c.commit();
          total += ids.size();
        }
      }
    }
  }

  /** A claimed event as a hand-written relay would hand it to a publisher. */
  record Message(
      UUID id,
      long seq,
      String aggregateType,
      String aggregateId,
      String eventType,
      String payload,
      String headers,
      Instant createdAt,
      int attempt) {}

  /** Every claimed row read into a {@link Message}; their ids in claim order. */
  private static List<UUID> claimMessages(PreparedStatement claim, int batchSize)
      throws SQLException {
    claim.setInt(1, batchSize);
    claim.setInt(2, batchSize);
    List<Message> messages = new ArrayList<>(batchSize);
    try (ResultSet rs = claim.executeQuery()) {
      while (rs.next()) {
        messages.add(
            new Message(
                rs.getObject(1, UUID.class),
                rs.getLong(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6),
                rs.getString(7),
                rs.getObject(8, OffsetDateTime.class).toInstant(),
                rs.getInt(9) + 1));
      }
    }
    List<UUID> ids = new ArrayList<>(messages.size());
    for (Message m : messages) {
      ids.add(m.id());
    }
    return ids;
  }

  private static List<UUID> claim(PreparedStatement claim, int batchSize) throws SQLException {
    claim.setInt(1, batchSize);
    claim.setInt(2, batchSize);
    List<UUID> ids = new ArrayList<>(batchSize);
    try (ResultSet rs = claim.executeQuery()) {
      while (rs.next()) {
        ids.add(rs.getObject(1, UUID.class));
        rs.getString(6); // read the payload and headers as a real relay would
        rs.getString(7);
      }
    }
    return ids;
  }

  private static long loop(DataSource dataSource, int batchSize, boolean delete, boolean messages)
      throws SQLException {
    long total = 0;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement claim = c.prepareStatement(CLAIM);
          PreparedStatement mark = c.prepareStatement(delete ? DELETE : MARK)) {
        while (true) {
          List<UUID> ids = messages ? claimMessages(claim, batchSize) : claim(claim, batchSize);
          if (ids.isEmpty()) {
            c.commit();
            return total;
          }
          Array array = c.createArrayOf("uuid", ids.toArray());
          mark.setArray(1, array);
          mark.executeUpdate();
          c.commit();
          total += ids.size();
        }
      }
    }
  }
}
