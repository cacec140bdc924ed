package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.postgresql.replication.PGReplicationStream;

/** The decoder on bytes read from a real slot of a real server. */
class RealServerOutputTest {

  @Test
  void decodesWhatTheServerSends() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("rs_");
    String table = tables.schema() + "." + tables.eventsTable();
    String slot = "real_output_" + tables.schema();
    // DDL and the slot function: no jOOQ model for them.
    LogicalServer.execute(
        "CREATE TABLE " + tables.schema() + ".other (id int PRIMARY KEY, x text)");
    LogicalServer.execute(
        "CREATE PUBLICATION "
            + slot
            + " FOR TABLE "
            + table
            + ", "
            + tables.schema()
            + ".other WITH (publish = 'insert, update, delete, truncate')");
    LogicalServer.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");

    DSLContext dsl = LogicalServer.dsl(tables);
    Outbox outbox = Outbox.builder().tables(tables).build();
    String payload = "{\"name\": \"Zoë ☃ 𝄞\", \"quote\": \"it's \\\"quoted\\\"\", \"n\": null}";
    dsl.transaction(
        c -> {
          outbox.record(
              c.dsl(),
              OutboxEvent.builder("order", "o-1", "order.created")
                  .payload(payload)
                  .header("k", "v'\"")
                  .build());
          outbox.record(c.dsl(), OutboxEvent.of("order", "o-1", "order.paid", "{}"));
        });
    LogicalServer.execute("INSERT INTO " + tables.schema() + ".other VALUES (1, 'x')");
    LogicalServer.execute("UPDATE " + tables.schema() + ".other SET x = 'y'");
    LogicalServer.execute("DELETE FROM " + tables.schema() + ".other");
    LogicalServer.execute("TRUNCATE " + tables.schema() + ".other");
    dsl.transaction(
        c ->
            outbox.record(
                c.dsl(),
                OutboxEvent.builder("order", "o-2", "order.later")
                    .payload("{}")
                    .notBefore(java.time.Instant.now().plusSeconds(3600))
                    .build()));
    LogicalServer.execute("SELECT pg_logical_emit_message(true, 'p', 'ignored')");
    dsl.transaction(c -> outbox.record(c.dsl(), OutboxEvent.of("order", "o-3", "order.x", "[1]")));

    List<ByteBuffer> messages = read(slot, 40);
    List<Character> kinds = new ArrayList<>();
    OutboxInserts inserts = new OutboxInserts(tables);
    List<OutboxInserts.Transaction> transactions = new ArrayList<>();
    for (ByteBuffer m : messages) {
      PgOutput.Message decoded = PgOutput.decode(m);
      kinds.add((char) m.get(m.position()));
      OutboxInserts.Transaction t = inserts.accept(decoded);
      if (t != null) {
        transactions.add(t);
      }
    }
    assertThat(kinds).contains('B', 'R', 'I', 'C', 'U', 'D', 'T');
    List<OutboxMessage> events = transactions.stream().flatMap(t -> t.events().stream()).toList();
    assertThat(events)
        .extracting(OutboxMessage::eventType)
        .containsExactly("order.created", "order.paid", "order.x");
    assertThat(transactions.stream().mapToInt(OutboxInserts.Transaction::delayed).sum())
        .isEqualTo(1);
    OutboxMessage first = events.get(0);
    // What the polling relay would read for the same row.
    var row =
        dsl.fetchSingle(
            "select payload::text, created_at, seq from " + table + " where id = ?", first.id());
    assertThat(first.payload()).isEqualTo(row.get(0, String.class));
    assertThat(first.payload()).contains("Zoë ☃ 𝄞");
    assertThat(first.createdAt()).isEqualTo(row.get(1, java.time.OffsetDateTime.class).toInstant());
    assertThat(first.sequence()).isEqualTo(row.get(2, Long.class));
    assertThat(first.headers()).isEqualTo(Map.of("k", "v'\""));
    assertThat(first.attempt()).isEqualTo(1);
    assertThat(transactions.get(0).events()).hasSize(2);
    LogicalServer.execute("SELECT pg_drop_replication_slot('" + slot + "')");
  }

  /** Reads messages from the slot until {@code count} or a quiet second after the last. */
  private static List<ByteBuffer> read(String slot, int count) throws Exception {
    List<ByteBuffer> out = new ArrayList<>();
    try (Connection c = LogicalServer.replication()) {
      PGReplicationStream stream = LogicalServer.stream(c, slot, true);
      long quietUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (out.size() < count && System.nanoTime() < quietUntil) {
        ByteBuffer b = stream.readPending();
        if (b == null) {
          continue; // readPending() waits up to 1 ms for the socket: a poll until the deadline
        }
        byte[] copy = new byte[b.remaining()];
        b.get(copy);
        out.add(ByteBuffer.wrap(copy));
        quietUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      }
      stream.close();
    }
    return out;
  }
}
