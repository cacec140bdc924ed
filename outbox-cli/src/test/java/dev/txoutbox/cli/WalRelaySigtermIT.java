package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.wal.WalSlot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM of a {@code relay --source wal} process (the shaded jar) while events stream in: it exits
 * 0 with both relays closed and the slot released, what it marked processed was received, every
 * event it left pending is still in the slot (it confirmed no further than it recorded), and the
 * next run publishes the rest.
 */
class WalRelaySigtermIT {

  private static final int TRANSACTIONS = 200;
  private static final int PER_TRANSACTION = 100;
  private static final int EVENTS = TRANSACTIONS * PER_TRANSACTION;
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  void sigtermWhileStreamingClosesBothRelaysAndTheNextRunPublishesTheRest() throws Exception {
    LogicalDatabase db = LogicalDatabase.freshOutbox();
    String slot = WalSlot.defaultName(OutboxTables.of(db.schema, ""));
    try (RabbitQueue rabbit = new RabbitQueue()) {
      Map<String, String> env =
          Map.of("OUTBOX_JDBC_URL", LogicalDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres");
      String[] relay = {
        "relay",
        "--schema",
        db.schema,
        "--source",
        "wal",
        // The sweeper's first cycle runs at start; after it only the slot publishes. In the second
        // run that first cycle may drain the whole backlog itself, so what the slot still holds is
        // checked before it, by peeking.
        "--sweep-interval",
        "10m",
        "--publisher",
        "rabbit",
        "--amqp-uri",
        RabbitQueue.URI,
        "--exchange",
        rabbit.exchange,
        "--batch-size",
        "20"
      };

      CompletableFuture<List<UUID>> written;
      String firstLog;
      try (JarProcess first = JarProcess.start(env, relay)) {
        await()
            .atMost(WAIT)
            .until(
                () ->
                    !first.isAlive()
                        || WalSlot.find(LogicalDatabase.dataSource(), slot)
                            .map(WalSlot::active)
                            .orElse(false));
        written = CompletableFuture.supplyAsync(() -> db.write(TRANSACTIONS, PER_TRANSACTION));
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(20))
            .until(() -> !first.isAlive() || db.count("processed_at is not null") >= 1_000);
        first.terminate();
        assertThat(first.waitFor()).as(first.err()).isZero();
        assertThat(first.err())
            .contains("WAL relay default stopped")
            .contains("stopping")
            .contains("relay stopped");
        firstLog = first.err();
      }
      firstLog.lines().filter(l -> l.contains("stopped at")).forEach(System.out::println);
      Set<String> all = ids(written.get(WAIT.toSeconds(), TimeUnit.SECONDS));
      long processedAtStop = db.count("processed_at is not null");
      assertThat(processedAtStop).as("stopped mid-stream").isBetween(1L, EVENTS - 1L);
      assertThat(WalSlot.find(LogicalDatabase.dataSource(), slot).orElseThrow().active())
          .as("the slot is released")
          .isFalse();
      Set<String> processed = ids(db, "processed_at is not null");
      await().atMost(WAIT).until(() -> rabbit.received().containsAll(processed));
      // A slot that confirmed past an event it had not recorded would have lost it: the next
      // run's sweeper would hide that, so the slot itself must still hold every pending event that
      // no relay has handed on. The sweeper runs beside the WAL relay and may postpone events
      // (retry_after, as when the broker answered it "unavailable" during its first cycle); the WAL
      // relay then leaves them to it, by design, and confirms past them.
      Set<String> pending = ids(db, "processed_at is null");
      assertThat(pending).hasSize(EVENTS - (int) processedAtStop);
      Set<String> untouched =
          ids(db, "processed_at is null and retry_after is null and attempts = 0");
      String held = peekSlot(slot);
      // The WAL relay confirms past only what it recorded or saw finished or postponed by the
      // sweeper when it claimed them (counted as skipped); an untouched event the slot no longer
      // holds would be one it lost. (It also leaves to the polling relay, by design and with an
      // INFO line, an event it cannot read or that stays invisible for its visibility wait; the
      // events here are all readable and their commits visible at once.)
      assertThat(untouched.stream().filter(id -> !held.contains(id)).sorted().toList())
          .as(
              "events left pending, untouched, that the slot no longer holds; the first run's log:%n%s",
              firstLog)
          .isEmpty();
      System.out.printf(
          "WAL relay: %d pending after the first run, %d of them handed to the sweeper%n",
          pending.size(), pending.size() - untouched.size());

      try (JarProcess second = JarProcess.start(env, relay)) {
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> !second.isAlive() || db.count("processed_at is null") == 0);
        second.terminate();
        assertThat(second.waitFor()).as(second.err()).isZero();
      }

      assertThat(db.count("processed_at is not null")).isEqualTo(EVENTS);
      await().atMost(WAIT).until(() -> rabbit.receivedCount() == EVENTS);
      assertThat(rabbit.received()).isEqualTo(all);
      System.out.printf(
          "WAL relay: processed by the first run %d; deliveries %d for %d events (%d duplicates)%n",
          processedAtStop, rabbit.deliveries(), EVENTS, rabbit.deliveries() - EVENTS);
    }
  }

  private static Set<String> ids(List<UUID> ids) {
    Set<String> out = new HashSet<>();
    ids.forEach(id -> out.add(id.toString()));
    return out;
  }

  // Plain SQL: the test reaches the outbox of a schema chosen at run time with one condition, as
  // LogicalDatabase.count does; the generated classes would add a render mapping and nothing else.
  private static Set<String> ids(LogicalDatabase db, String where) {
    return ids(
        DSL.using(LogicalDatabase.dataSource(), SQLDialect.POSTGRES)
            .fetch("select id from " + db.schema + ".outbox_events where " + where)
            .getValues(0, UUID.class));
  }

  /**
   * The changes {@code slot} holds past its confirmed position, as pgoutput writes them, read
   * without consuming them (the slot stays where it is); an insert carries the row's id as text.
   */
  private static String peekSlot(String slot) {
    // Catalog functions with no generated model: plain SQL.
    DSLContext dsl = DSL.using(LogicalDatabase.dataSource(), SQLDialect.POSTGRES);
    // The embedded server commits with synchronous_commit=off (its default), and a slot decodes
    // only WAL that is flushed: without this the last commits, up to wal_writer_delay old, were
    // missing from the peek (1 run in 6), as if the relay had confirmed past them. A commit that
    // wrote WAL and waits for its flush flushes all WAL before it: a transactional logical message
    // (which pgoutput sends only with its "messages" option) is such a write; a transaction that
    // only takes an xid writes nothing and commits without a flush.
    dsl.transaction(
        tx -> {
          tx.dsl().execute("set local synchronous_commit = on");
          tx.dsl().fetch("select pg_logical_emit_message(true, 'txoutbox-test', 'flush')");
        });
    List<byte[]> changes =
        dsl.fetch(
                "select data from pg_logical_slot_peek_binary_changes(?, null, null,"
                    + " 'proto_version', '1', 'publication_names', ?)",
                slot,
                slot)
            .getValues(0, byte[].class);
    StringBuilder out = new StringBuilder();
    changes.forEach(c -> out.append(new String(c, StandardCharsets.ISO_8859_1)));
    return out.toString();
  }
}
