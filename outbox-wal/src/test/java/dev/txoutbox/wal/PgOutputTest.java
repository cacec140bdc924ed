package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.TestMessages;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The decoder on hand-built messages: the edge cases a real server seldom shows. */
class PgOutputTest {

  /** The table's columns as the relay needs them, and one more it does not read. */
  static final List<String> COLUMNS = columns();

  private static List<String> columns() {
    List<String> all = new ArrayList<>(OutboxInserts.NEEDED);
    all.add("last_error");
    return all;
  }

  /** Builds one pgoutput message. */
  static final class Msg {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(bytes);

    Msg(char kind) {
      b(kind);
    }

    Msg b(int v) {
      try {
        out.writeByte(v);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return this;
    }

    Msg s(int v) {
      try {
        out.writeShort(v);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return this;
    }

    Msg i(int v) {
      try {
        out.writeInt(v);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return this;
    }

    Msg l(long v) {
      try {
        out.writeLong(v);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return this;
    }

    Msg str(String v) {
      bytes.writeBytes(v.getBytes(StandardCharsets.UTF_8));
      return b(0);
    }

    Msg text(String v) {
      byte[] b = v.getBytes(StandardCharsets.UTF_8);
      b('t').i(b.length);
      bytes.writeBytes(b);
      return this;
    }

    ByteBuffer buffer() {
      return ByteBuffer.wrap(bytes.toByteArray());
    }
  }

  static ByteBuffer relation(int oid, String namespace, String name, List<String> columns) {
    Msg m = new Msg('R').i(oid).str(namespace).str(name).b('d').s(columns.size());
    for (String c : columns) {
      m.b(c.equals("id") ? 1 : 0).str(c).i(25).i(-1);
    }
    return m.buffer();
  }

  /** An insert; a null value is sent as 'n', "\u0000u" as an unchanged TOAST value. */
  static ByteBuffer insert(int oid, String... values) {
    Msg m = new Msg('I').i(oid).b('N').s(values.length);
    for (String v : values) {
      if (v == null) {
        m.b('n');
      } else if (v.equals("\u0000u")) {
        m.b('u');
      } else {
        m.text(v);
      }
    }
    return m.buffer();
  }

  static String[] row(UUID id, long seq, String payload, String headers) {
    return new String[] {
      id.toString(),
      Long.toString(seq),
      "order",
      "o-1",
      "order.created",
      payload,
      headers,
      "0",
      "2026-12-01 18:34:01.123456+05:30",
      null,
      null,
      null,
      null
    };
  }

  @Test
  void beginAndCommit() {
    assertThat(PgOutput.decode(new Msg('B').l(0x1_0000_0010L).l(42).i(7).buffer()))
        .isEqualTo(new PgOutput.Begin(0x1_0000_0010L, 42, 7));
    assertThat(PgOutput.decode(new Msg('C').b(0).l(100).l(164).l(43).buffer()))
        .isEqualTo(new PgOutput.Commit(100, 164, 43));
  }

  @Test
  void relationWithMultiByteNames() {
    PgOutput.Message m = PgOutput.decode(relation(5, "schéma", "tâble", List.of("ü", "x")));
    assertThat(m).isEqualTo(new PgOutput.Relation(5, "schéma", "tâble", List.of("ü", "x")));
  }

  @Test
  void insertValuesNullUnchangedAndText() {
    PgOutput.Insert m =
        (PgOutput.Insert) PgOutput.decode(insert(9, null, "\u0000u", "a 'q' \"dq\" ☃ 𝄞", ""));
    assertThat(m.relationOid()).isEqualTo(9);
    assertThat(m.values())
        .containsExactly(
            PgOutput.Value.NULL,
            PgOutput.Value.UNCHANGED,
            new PgOutput.Value('t', "a 'q' \"dq\" ☃ 𝄞"),
            new PgOutput.Value('t', ""));
  }

  @Test
  void otherKindsAreSkipped() {
    for (char kind : new char[] {'U', 'D', 'T', 'O', 'Y', 'M'}) {
      assertThat(PgOutput.decode(new Msg(kind).i(1).buffer()))
          .isEqualTo(new PgOutput.Skipped(kind));
    }
  }

  @Test
  void malformedMessagesAreRefused() {
    assertThatThrownBy(() -> PgOutput.decode(new Msg('Z').buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown pgoutput message kind 'Z'");
    assertThatThrownBy(() -> PgOutput.decode(new Msg('B').l(1).buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("truncated");
    assertThatThrownBy(() -> PgOutput.decode(new Msg('R').i(1).b('a').buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("truncated");
    assertThatThrownBy(
            () -> PgOutput.decode(new Msg('I').i(1).b('N').s(1).b('t').i(99).b(1).buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("claims 99 bytes but 1 remain");
    assertThatThrownBy(() -> PgOutput.decode(new Msg('I').i(1).b('N').s(1).b('b').buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("binary tuple value");
    assertThatThrownBy(() -> PgOutput.decode(new Msg('I').i(1).b('K').buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("marker 'K'");
  }

  @Test
  void decodesFromTheBufferPositionWithoutMovingIt() {
    ByteBuffer b = ByteBuffer.allocate(30);
    b.put((byte) 'x').put(new Msg('B').l(1).l(2).i(3).buffer()).flip();
    b.get();
    int at = b.position();
    assertThat(PgOutput.decode(b)).isEqualTo(new PgOutput.Begin(1, 2, 3));
    assertThat(b.position()).isEqualTo(at);
  }

  @Test
  void keepsOnlyInsertsIntoTheConfiguredTable() {
    OutboxTables tables = OutboxTables.of("billing", "bill_");
    OutboxInserts inserts = new OutboxInserts(tables);
    UUID ours = UUID.randomUUID();
    List<PgOutput.Message> stream = new ArrayList<>();
    stream.add(PgOutput.decode(new Msg('B').l(1).l(2).i(3).buffer()));
    stream.add(PgOutput.decode(relation(1, "billing", "bill_outbox_events", COLUMNS)));
    stream.add(PgOutput.decode(relation(2, "billing", "outbox_events", COLUMNS)));
    stream.add(PgOutput.decode(relation(3, "other", "bill_outbox_events", COLUMNS)));
    stream.add(PgOutput.decode(insert(2, row(UUID.randomUUID(), 1, "{}", "{}"))));
    stream.add(PgOutput.decode(insert(3, row(UUID.randomUUID(), 1, "{}", "{}"))));
    stream.add(
        PgOutput.decode(
            insert(1, row(ours, 7, "{\"a\": \"é ☃\"}", "{\"k\": \"v \\\"q\\\" \\u00e9\"}"))));
    String[] delayed = row(UUID.randomUUID(), 8, "{}", "{}");
    delayed[9] = "2030-01-01 00:00:00+00";
    stream.add(PgOutput.decode(insert(1, delayed)));
    List<OutboxInserts.Transaction> done = new ArrayList<>();
    for (PgOutput.Message m : stream) {
      assertThat(inserts.accept(m)).isNull();
    }
    OutboxInserts.Transaction t = inserts.accept(new PgOutput.Commit(10, 20, 30));
    assertThat(t).isNotNull();
    done.add(t);
    assertThat(t.endLsn()).isEqualTo(20);
    assertThat(t.delayed()).isEqualTo(1);
    assertThat(t.events())
        .containsExactly(
            TestMessages.message()
                .id(ours)
                .sequence(7)
                .aggregateType("order")
                .aggregateId("o-1")
                .eventType("order.created")
                .payload("{\"a\": \"é ☃\"}")
                .headers(Map.of("k", "v \"q\" é"))
                .createdAt(Instant.parse("2026-12-01T13:04:01.123456Z"))
                .attempt(1)
                .build());
  }

  @Test
  void aRelationRenamedAwayIsForgotten() {
    OutboxInserts inserts = new OutboxInserts(OutboxTables.in("s"));
    inserts.accept(PgOutput.decode(relation(1, "s", "outbox_events", COLUMNS)));
    inserts.accept(PgOutput.decode(relation(1, "s", "renamed", COLUMNS)));
    inserts.accept(PgOutput.decode(insert(1, row(UUID.randomUUID(), 1, "{}", "{}"))));
    assertThat(inserts.accept(new PgOutput.Commit(1, 2, 3)).events()).isEmpty();
  }

  @Test
  void anUnreadableInsertIsSetAsideWithItsIdAndTheColumnWhileTheOthersGoOn() {
    OutboxInserts inserts = new OutboxInserts(OutboxTables.in("s"));
    inserts.accept(PgOutput.decode(relation(1, "s", "outbox_events", COLUMNS)));
    UUID toast = UUID.randomUUID();
    String[] values = row(toast, 1, "{}", "{}");
    values[5] = "\u0000u";
    assertThat(inserts.accept(PgOutput.decode(insert(1, values)))).isNull();
    UUID missing = UUID.randomUUID();
    String[] nulls = row(missing, 2, "{}", "{}");
    nulls[5] = null;
    inserts.accept(PgOutput.decode(insert(1, nulls)));
    UUID numbers = UUID.randomUUID();
    inserts.accept(PgOutput.decode(insert(1, row(numbers, 3, "{}", "[1]"))));
    UUID fine = UUID.randomUUID();
    inserts.accept(PgOutput.decode(insert(1, row(fine, 4, "{}", "{}"))));
    // A value that is not a string is kept as its JSON text, as the polling relay keeps it.
    UUID number = UUID.randomUUID();
    inserts.accept(PgOutput.decode(insert(1, row(number, 5, "{}", "{\"n\": 1}"))));

    OutboxInserts.Transaction t = inserts.accept(new PgOutput.Commit(1, 2, 3));
    assertThat(t.events()).extracting(OutboxMessage::id).containsExactly(fine, number);
    assertThat(t.events().get(1).headers()).isEqualTo(Map.of("n", "1"));
    assertThat(t.unreadable())
        .extracting(OutboxInserts.Unreadable::id)
        .containsExactly(toast, missing, numbers);
    assertThat(t.unreadable())
        .extracting(OutboxInserts.Unreadable::reason)
        .containsExactly(
            "column payload must have a text value but was an unchanged TOAST value",
            "column payload must have a text value but was null",
            "headers must be a JSON object of strings but were not: expected a JSON object at"
                + " offset 0");
    // The next transaction starts clean.
    inserts.accept(PgOutput.decode(new Msg('B').l(1).l(2).i(3).buffer()));
    assertThat(inserts.accept(new PgOutput.Commit(4, 5, 6)).unreadable()).isEmpty();
  }

  @Test
  void anInsertWhoseIdCannotBeReadFailsTheStream() {
    OutboxInserts inserts = new OutboxInserts(OutboxTables.in("s"));
    inserts.accept(PgOutput.decode(relation(1, "s", "outbox_events", COLUMNS)));
    String[] values = row(UUID.randomUUID(), 1, "{}", "{}");
    values[0] = "not-a-uuid";
    assertThatThrownBy(() -> inserts.accept(PgOutput.decode(insert(1, values))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot read an insert into s.outbox_events");
  }

  @Test
  void anInsertWithoutANeededColumnIsUnreadableAndTheStreamGoesOn() {
    OutboxInserts inserts = new OutboxInserts(OutboxTables.in("s"));
    // A publication's column list without headers (PostgreSQL 15): the relation lacks it.
    List<String> fewer = new ArrayList<>(COLUMNS);
    int headers = fewer.indexOf("headers");
    fewer.remove(headers);
    inserts.accept(PgOutput.decode(relation(1, "s", "outbox_events", fewer)));
    inserts.accept(PgOutput.decode(new Msg('B').l(1).l(2).i(3).buffer()));
    UUID id = UUID.randomUUID();
    List<String> values = new ArrayList<>(Arrays.asList(row(id, 1, "{}", "{}")));
    values.remove(headers);
    inserts.accept(PgOutput.decode(insert(1, values.toArray(String[]::new))));
    OutboxInserts.Transaction t = inserts.accept(new PgOutput.Commit(4, 5, 6));

    assertThat(t.events()).isEmpty();
    assertThat(t.endLsn()).isEqualTo(5);
    assertThat(t.unreadable())
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.id()).isEqualTo(id);
              assertThat(u.reason())
                  .isEqualTo(
                      "the stream does not carry column(s) [headers] of s.outbox_events (a"
                          + " publication column list, or the table altered)");
            });
  }

  @Test
  void timestampsInEveryOffsetForm() {
    for (String[] c :
        Arrays.asList(
            new String[] {"2026-01-02 03:04:05+00", "2026-01-02T03:04:05Z"},
            new String[] {"2026-01-02 03:04:05.5-08", "2026-01-02T11:04:05.500Z"},
            new String[] {"2026-01-02 03:04:05.000001+05:30", "2026-01-01T21:34:05.000001Z"},
            new String[] {"1900-01-02 03:04:05+00:19:32", "1900-01-02T02:44:33Z"})) {
      assertThat(TimestamptzText.parse(c[0])).as(c[0]).isEqualTo(Instant.parse(c[1]));
      assertThat(TimestamptzText.fast(c[0])).as("read by hand: " + c[0]).isNotNull();
    }
  }
}
