package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static dev.txoutbox.wal.WalTestKit.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.OutboxRelay;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestClock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The WAL relay and the polling relay hand the publisher the same headers for the same rows: random
 * objects with strings, escapes, unicode and nested values that are not strings (which both keep as
 * their JSON text), inserted as {@code jsonb} past the writer. Seeded: set {@code
 * -Dtxoutbox.headers.seed=<n>} to replay the seed a failure names.
 */
class WalHeadersDifferentialTest {

  private static final long SEED = Long.getLong("txoutbox.headers.seed", System.nanoTime());
  private static final int ROWS = 60;

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  @Test
  void bothRelaysReadTheSameHeaders() throws Exception {
    Random random = new Random(SEED);
    OutboxTables tables = LogicalServer.freshOutbox("hd_");
    DSLContext dsl = LogicalServer.dsl(tables);
    RecordingPublisher wal = new RecordingPublisher();
    kit.relay(tables, wal, WalTestKit.config(100)).start();
    Map<UUID, String> written = new HashMap<>();
    for (int i = 0; i < ROWS; i++) {
      String json = object(random, 0);
      UUID id = UUID.randomUUID();
      written.put(id, json);
      dsl.insertInto(OUTBOX_EVENTS)
          .set(OUTBOX_EVENTS.ID, id)
          .set(OUTBOX_EVENTS.AGGREGATE_TYPE, "order")
          .set(OUTBOX_EVENTS.AGGREGATE_ID, "h" + i)
          .set(OUTBOX_EVENTS.EVENT_TYPE, "e")
          .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
          .set(OUTBOX_EVENTS.HEADERS, JSONB.valueOf(json))
          .execute();
    }
    await().atMost(WAIT).until(() -> wal.published().size() == ROWS);

    // The same rows once more, through the polling relay.
    dsl.update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.PROCESSED_AT, DSL.inline(null, OUTBOX_EVENTS.PROCESSED_AT))
        .execute();
    RecordingPublisher polling = new RecordingPublisher();
    OutboxRelay relay = kit.polling(tables, polling, TestClock.now());
    assertThat(relay.drain().published()).hasSize(ROWS);

    Map<UUID, Map<String, String>> byWal = headers(wal.published());
    Map<UUID, Map<String, String>> byPolling = headers(polling.published());
    for (Map.Entry<UUID, String> e : written.entrySet()) {
      assertThat(byWal.get(e.getKey()))
          .as("seed %d, headers %s", SEED, e.getValue())
          .isEqualTo(byPolling.get(e.getKey()));
    }
    assertThat(byWal).as("seed %d", SEED).hasSize(ROWS).isEqualTo(byPolling);
    assertThat(byWal.values())
        .as("seed %d: some value not a string was read as its JSON text", SEED)
        .anyMatch(h -> h.values().stream().anyMatch(v -> v.startsWith("{") || v.startsWith("[")));
  }

  private static Map<UUID, Map<String, String>> headers(List<OutboxMessage> messages) {
    Map<UUID, Map<String, String>> out = new HashMap<>();
    messages.forEach(m -> out.put(m.id(), m.headers()));
    return out;
  }

  private static String object(Random r, int depth) {
    StringBuilder sb = new StringBuilder("{");
    int n = r.nextInt(depth == 0 ? 6 : 3);
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(string(r)).append(": ").append(value(r, depth));
    }
    return sb.append('}').toString();
  }

  private static String value(Random r, int depth) {
    int kind = r.nextInt(depth < 2 ? 8 : 5);
    return switch (kind) {
      case 0, 1 -> string(r);
      case 2 -> Long.toString(r.nextLong() >> r.nextInt(64));
      case 3 -> r.nextBoolean() ? "true" : (r.nextBoolean() ? "false" : "null");
      case 4 -> r.nextInt(1000) + "." + r.nextInt(1000) + (r.nextBoolean() ? "e-3" : "");
      case 5, 6 -> object(r, depth + 1);
      default -> "[" + value(r, depth + 1) + ", " + value(r, depth + 1) + "]";
    };
  }

  /** A JSON string of letters, escapes, controls, BMP characters and surrogate pairs. */
  private static String string(Random r) {
    String[] pieces = {
      "a",
      "Z",
      " ",
      "\\\"",
      "\\\\",
      "\\/",
      "\\n",
      "\\t",
      "\\r",
      "\\b",
      "\\f",
      "\\u0001",
      "\\u001f",
      "\\u00e9",
      "\\ud83d\\ude00",
      "é",
      "ü",
      "中",
      "😀",
      "\u2028",
      "'",
      "%",
      "{}"
    };
    StringBuilder sb = new StringBuilder("\"");
    int n = r.nextInt(8);
    for (int i = 0; i < n; i++) {
      sb.append(pieces[r.nextInt(pieces.length)]);
    }
    return sb.append('"').toString();
  }
}
