package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.internal.json.Json;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.RecordingPublisher;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The writer and PostgreSQL's {@code jsonb} give every generated input the same verdict. An input
 * is expected to be accepted exactly when PostgreSQL parses it and it keeps the writer's own
 * limits: nesting of at most {@link Json#MAX_DEPTH}, and at most {@code maxPayloadBytes} both as
 * given and as PostgreSQL writes it back. Every accepted input is stored, read back by a relay, and
 * must equal PostgreSQL's own rendering.
 *
 * <p>{@code -Dtxoutbox.differential.seed=N} replays a run; {@code -Dtxoutbox.differential.cases=N}
 * sets its size (default 10,000).
 */
class OutboxWriterJsonDifferentialTest {

  private static final int CASES = Integer.getInteger("txoutbox.differential.cases", 10_000);
  private static final int MAX_PAYLOAD_BYTES = 300_000;
  private static final int PER_STATEMENT = 400;

  @RegisterExtension static final WriterFixture fx = new WriterFixture("writer_differential");

  /** What PostgreSQL made of an input: its rendering, or null if it refused it (or could not). */
  private record Verdict(String rendered, String error) {}

  @Test
  void writerAndPostgresGiveEveryInputTheSameVerdict() throws Exception {
    long seed = Long.getLong("txoutbox.differential.seed", System.nanoTime());
    System.out.println(
        "differential: seed " + seed + " (replay with -Dtxoutbox.differential.seed=" + seed + ")");
    long started = System.nanoTime();
    JsonishGenerator generator = new JsonishGenerator(seed);
    List<JsonishGenerator.Input> inputs = new ArrayList<>(CASES);
    for (int i = 0; i < CASES; i++) {
      inputs.add(generator.next());
    }
    List<Verdict> postgres = postgresVerdicts(inputs);
    long postgresDone = System.nanoTime();

    Outbox outbox = fx.writer().maxPayloadBytes(MAX_PAYLOAD_BYTES).build();
    List<String> mismatches = new ArrayList<>();
    Map<String, String> expectedPayloads = new HashMap<>();
    Map<String, Integer> accepted = new HashMap<>();
    for (int from = 0; from < CASES; from += PER_STATEMENT) {
      List<Integer> group = new ArrayList<>();
      for (int i = from; i < Math.min(CASES, from + PER_STATEMENT); i++) {
        group.add(i);
      }
      Map<String, String> strings = new LinkedHashMap<>();
      Map<String, Object> bytes = new LinkedHashMap<>();
      for (int i : group) {
        if (inputs.get(i).text() != null) {
          strings.put("s-" + i, inputs.get(i).text());
        }
        if (inputs.get(i).bytes() != null) {
          bytes.put("b-" + i, inputs.get(i).bytes());
        }
      }
      Map<String, String> refused = new HashMap<>();
      fx.dsl.transaction(
          tx -> {
            refused.putAll(writerRefusals(outbox, tx.dsl(), strings));
            refused.putAll(writerRefusals(outbox, tx.dsl(), bytes));
          });
      for (int i : group) {
        JsonishGenerator.Input input = inputs.get(i);
        Verdict pg = postgres.get(i);
        boolean expected = expectedAccepted(input, pg);
        for (String id : List.of("s-" + i, "b-" + i)) {
          if (strings.containsKey(id) || bytes.containsKey(id)) {
            String refusal = refused.get(id);
            check(
                mismatches,
                i,
                id.startsWith("s") ? "String" : "byte[]",
                input,
                pg,
                expected,
                refusal);
            if (refusal == null) {
              expectedPayloads.put(id, pg.rendered());
            }
          }
        }
        if (expected) {
          accepted.merge(input.kind(), 1, Integer::sum);
          checkSizes(mismatches, i, input, pg);
        }
      }
    }
    long writerDone = System.nanoTime();

    Map<String, String> readBack = drainWithRelay();
    long relayDone = System.nanoTime();
    System.out.printf(
        "differential: %d inputs (%d accepted: %s), PostgreSQL %d ms, writer %d ms, relay read-back"
            + " of %d events %d ms, total %d ms%n",
        CASES,
        accepted.values().stream().mapToInt(Integer::intValue).sum(),
        accepted,
        (postgresDone - started) / 1_000_000,
        (writerDone - postgresDone) / 1_000_000,
        readBack.size(),
        (relayDone - writerDone) / 1_000_000,
        (relayDone - started) / 1_000_000);
    assertThat(mismatches).as("seed " + seed).isEmpty();
    assertThat(readBack).as("seed " + seed).isEqualTo(expectedPayloads);
    assertThat(accepted.values().stream().mapToInt(Integer::intValue).sum())
        .as("a run that accepts nothing proves nothing")
        .isGreaterThan(CASES / 10);
  }

  private static boolean expectedAccepted(JsonishGenerator.Input input, Verdict pg) {
    return pg.rendered() != null
        && input.bytes().length <= MAX_PAYLOAD_BYTES
        && pg.rendered().getBytes(StandardCharsets.UTF_8).length <= MAX_PAYLOAD_BYTES
        && depth(pg.rendered()) <= Json.MAX_DEPTH;
  }

  /**
   * The writer's measure of the text PostgreSQL writes back is exact on PostgreSQL's own rendering,
   * and at least as large on the input (equal unless an object repeats a key).
   */
  private static void checkSizes(
      List<String> mismatches, int i, JsonishGenerator.Input input, Verdict pg) {
    long actual = pg.rendered().getBytes(StandardCharsets.UTF_8).length;
    Json.Size ofRendering;
    Json.Size ofInput;
    try {
      ofRendering = Json.check(pg.rendered());
      ofInput = Json.check(input.text());
    } catch (IllegalArgumentException e) {
      mismatches.add("#" + i + " sizes: " + e.getMessage() + ": " + show(input.text()));
      return;
    }
    if (ofRendering.renderedBytes() != actual
        || ofInput.renderedBytes() < actual
        || ofInput.textBytes() != input.bytes().length) {
      mismatches.add(
          "#"
              + i
              + " sizes: "
              + ofInput
              + " / "
              + ofRendering
              + " vs "
              + actual
              + ": "
              + show(input.text()));
    }
  }

  private static void check(
      List<String> mismatches,
      int i,
      String form,
      JsonishGenerator.Input input,
      Verdict pg,
      boolean expected,
      String writerRefusal) {
    boolean writerAccepted = writerRefusal == null;
    if (writerAccepted != expected) {
      mismatches.add(
          String.format(
              "#%d %s %s: expected %s, writer %s; PostgreSQL: %s; input: %s",
              i,
              input.kind(),
              form,
              expected ? "accept" : "refuse",
              writerAccepted ? "accepted" : "refused (" + writerRefusal + ")",
              pg.rendered() != null ? "ok, " + show(pg.rendered()) : pg.error(),
              input.text() != null ? show(input.text()) : "bytes " + hex(input.bytes())));
    }
  }

  /**
   * The real writer's verdict on each payload, in few statements: {@code recordAll} refuses a whole
   * call for its first bad event and names its index, so the events before it are good; the rest is
   * tried again. Each payload is checked at most twice, and at most two INSERTs are written.
   *
   * @param payloads aggregate id to payload, in iteration order
   * @return aggregate id to the writer's message, for every refused payload
   */
  private static Map<String, String> writerRefusals(
      Outbox outbox, org.jooq.DSLContext tx, Map<String, ? extends Object> payloads) {
    List<String> ids = new ArrayList<>(payloads.keySet());
    List<OutboxEvent> events = new ArrayList<>(ids.size());
    for (String id : ids) {
      events.add(OutboxEvent.of("differential", id, "case", payloads.get(id)));
    }
    Map<String, String> refused = new HashMap<>();
    List<OutboxEvent> good = new ArrayList<>();
    int start = 0;
    while (start < ids.size()) {
      try {
        outbox.recordAll(tx, events.subList(start, ids.size()));
        break;
      } catch (IllegalArgumentException e) {
        Matcher index = FIRST_INDEX.matcher(e.getMessage());
        assertThat(index.lookingAt()).as(e.getMessage()).isTrue();
        int bad = start + Integer.parseInt(index.group(1));
        good.addAll(events.subList(start, bad));
        refused.put(ids.get(bad), e.getMessage());
        start = bad + 1;
      }
    }
    if (!good.isEmpty()) {
      outbox.recordAll(tx, good);
    }
    return refused;
  }

  private static final Pattern FIRST_INDEX = Pattern.compile("events\\[(\\d+)]");

  /**
   * Asks PostgreSQL about every input, {@value #PER_STATEMENT} per statement: a temporary function
   * parses one input in a block with its own savepoint, so one refusal does not abort the rest.
   */
  private static List<Verdict> postgresVerdicts(List<JsonishGenerator.Input> inputs)
      throws SQLException {
    List<Verdict> verdicts = new ArrayList<>(inputs.size());
    try (Connection c = fx.db.dataSource().getConnection()) {
      try (Statement s = c.createStatement()) {
        s.execute(
            "CREATE FUNCTION pg_temp.txoutbox_try_jsonb(input bytea) RETURNS text LANGUAGE plpgsql"
                + " AS $$ BEGIN RETURN 'ok:' || convert_from(input, 'UTF8')::jsonb::text;"
                + " EXCEPTION WHEN OTHERS THEN RETURN 'error:' || SQLSTATE || ' ' || SQLERRM;"
                + " END $$");
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT pg_temp.txoutbox_try_jsonb(input) FROM unnest(?::bytea[])"
                  + " WITH ORDINALITY AS t(input, n) ORDER BY n")) {
        for (int from = 0; from < inputs.size(); from += PER_STATEMENT) {
          List<JsonishGenerator.Input> batch =
              inputs.subList(from, Math.min(inputs.size(), from + PER_STATEMENT));
          byte[][] bytes = new byte[batch.size()][];
          for (int i = 0; i < batch.size(); i++) {
            // A lone surrogate has no UTF-8 form: PostgreSQL cannot even be asked.
            bytes[i] = batch.get(i).bytes() == null ? new byte[0] : batch.get(i).bytes();
          }
          Array array = c.createArrayOf("bytea", bytes);
          ps.setArray(1, array);
          try (ResultSet rs = ps.executeQuery()) {
            for (int i = 0; rs.next(); i++) {
              String result = rs.getString(1);
              boolean askable = batch.get(i).bytes() != null;
              verdicts.add(
                  askable && result.startsWith("ok:")
                      ? new Verdict(result.substring(3), null)
                      : new Verdict(null, askable ? result : "no UTF-8 form"));
            }
          }
          array.free();
        }
      }
    }
    assertThat(verdicts).hasSize(inputs.size());
    return verdicts;
  }

  /** Publishes every stored event through a relay and returns aggregate id to payload. */
  private static Map<String, String> drainWithRelay() throws InterruptedException {
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay =
        TestSupport.relayBuilder(fx.db, publisher)
            .config(RelayConfig.builder().batchSize(1000).build())
            .build();
    while (relay.runOnce() > 0) {
      // until the outbox is drained
    }
    Map<String, String> payloads = new HashMap<>();
    for (OutboxMessage m : publisher.published()) {
      payloads.put(m.aggregateId(), m.payload());
    }
    return payloads;
  }

  /** Nesting depth of PostgreSQL's rendering (no whitespace inside tokens to care about). */
  private static int depth(String json) {
    int depth = 0;
    int max = 0;
    boolean inString = false;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '[' || c == '{') {
        max = Math.max(max, ++depth);
      } else if (c == ']' || c == '}') {
        depth--;
      }
    }
    return max;
  }

  private static String show(String s) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < Math.min(s.length(), 120); i++) {
      char c = s.charAt(i);
      out.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return out + (s.length() > 120 ? "…(" + s.length() + " chars)" : "");
  }

  private static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < Math.min(bytes.length, 80); i++) {
      out.append(String.format("%02x", bytes[i] & 0xff));
    }
    return out + (bytes.length > 80 ? "…" : "");
  }
}
