package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every limit of an event, with PostgreSQL's own behaviour on each side of it: a refused event
 * throws before anything is written (the caller's transaction commits its business rows), an
 * accepted one is stored and read back unchanged.
 */
class OutboxWriterLimitsTest {

  private static final Class<IllegalArgumentException> IAE = IllegalArgumentException.class;

  @RegisterExtension static final WriterFixture fx = new WriterFixture("writer_limits");
  private Outbox outbox;

  @BeforeEach
  void writer() {
    outbox = fx.writer().build();
  }

  private String stored(Outbox writer, Object payload) {
    UUID id = fx.dsl.transactionResult(tx -> writer.record(tx.dsl(), "a", "1", "t", payload));
    return fx.payload(id);
  }

  private void rejectsHeader(String name, String value, String... parts) {
    OutboxEvent event =
        OutboxEvent.builder("a", "1", "t").payload("{}").header(name, value).build();
    fx.rejects(IAE, tx -> outbox.record(tx, event), parts);
  }

  private void rejectsPayload(Outbox writer, String payload, String... parts) {
    fx.rejects(IAE, tx -> writer.record(tx, "a", "1", "t", payload), parts);
    fx.rejects(
        IAE,
        tx -> writer.record(tx, "a", "1", "t", payload.getBytes(StandardCharsets.UTF_8)),
        parts);
  }

  // ---- JSON that PostgreSQL's jsonb refuses ----

  @Test
  void refusesLoneAndReversedSurrogateEscapes() {
    for (String bad :
        List.of(
            "\"\\uD800\"",
            "\"\\uDC00\"",
            "\"\\uDC00\\uD800\"",
            "\"\\uD800x\"",
            "\"\\uD800\\n\"",
            "\"\\uD800\\u0041\"",
            "\"\\uD800\\uD800\\uDC00\"")) {
      rejectsPayload(outbox, bad, "event.payload must be valid JSON but was not", "surrogate");
    }
    assertThat(stored(outbox, "\"\\uD83D\\uDE00\"")).isEqualTo("\"\uD83D\uDE00\"");
  }

  @Test
  void refusesSignsAndNonAsciiDigitsInUnicodeEscapes() {
    for (String digits :
        List.of(
            "+041",
            "-041",
            "\uFF10\uFF10\uFF14\uFF11", // full-width digits
            "\u0660\u0660\u0664\u0661", // Arabic-Indic digits
            "\u0966\u0966\u096A\u0967", // Devanagari digits
            "004",
            "00 41")) {
      rejectsPayload(outbox, "\"\\u" + digits + "\"", "event.payload", "four hexadecimal digits");
    }
    assertThat(stored(outbox, "\"\\u00e9\\u00C9\"")).isEqualTo("\"\u00e9\u00c9\"");
  }

  @Test
  void refusesNumbersOutsidePostgresNumericRange() {
    Outbox roomy = fx.writer().maxPayloadBytes(200_000).build();
    for (String bad :
        List.of("1e131072", "-1e131072", "1e-16384", "0e-1000000", "1.00e-16382", "0e1073741823")) {
      rejectsPayload(
          roomy, bad, "event.payload", "numeric range", "131072 digits before", "16383 after");
    }
    // At the limits: 131,072 digits before the point, 16,383 after; zero scales freely upwards.
    assertThat(stored(roomy, "9.99e131071")).hasSize(131_072).startsWith("999");
    assertThat(stored(roomy, "1e-16383")).hasSize(16_385).endsWith("01");
    assertThat(stored(roomy, "0e1073741822")).isEqualTo("0");
    assertThat(stored(roomy, "-0.0")).isEqualTo("0.0");
  }

  @Test
  void boundsTheSizeOfThePayloadAsPostgresWritesItBack() {
    Outbox small = fx.writer().maxPayloadBytes(200_000).build();
    // 10 bytes of text, 131,072 digits when read back: fits; two of them do not.
    assertThat(stored(small, "1e131071")).hasSize(131_072);
    rejectsPayload(
        small,
        "[1e131071,1e131071]",
        "event.payload must be at most 200000 bytes also as PostgreSQL writes it back",
        "262148 bytes");
    // The ~75 KB payload of the relay incident: refused at the default 1 MiB.
    String incident = "[" + "1e131071,".repeat(7_000) + "1]";
    rejectsPayload(outbox, incident, "event.payload", "1048576", "as PostgreSQL writes it back");
    // The spaces jsonb adds count too: 10 bytes of text, 14 as written back.
    Outbox tiny = fx.writer().maxPayloadBytes(12).build();
    rejectsPayload(tiny, "[1,2,3,4,5]", "at most 12 bytes also as PostgreSQL", "15 bytes");
    assertThat(stored(tiny, "[1, 2, 3]")).isEqualTo("[1, 2, 3]");
  }

  @Test
  void nestingHasOneLimitForArraysAndObjects() {
    int max = dev.txoutbox.internal.json.Json.MAX_DEPTH;
    String arrays = "[".repeat(max) + "]".repeat(max);
    String objects = "{\"a\":".repeat(max - 1) + "{}" + "}".repeat(max - 1);
    assertThat(stored(outbox, arrays)).isEqualTo(arrays);
    assertThat(stored(outbox, objects)).startsWith("{\"a\": {\"a\": ");
    rejectsPayload(outbox, "[" + arrays + "]", "event.payload", "nested deeper than 500");
    rejectsPayload(outbox, "{\"a\":" + objects + "}", "event.payload", "nested deeper than 500");
    String mixed = "[{\"a\":" + "[".repeat(max - 1) + "]".repeat(max - 1) + "}]";
    rejectsPayload(outbox, mixed, "nested deeper than 500");
  }

  // ---- Java strings that cannot be stored faithfully ----

  @Test
  void refusesLoneSurrogatesInEveryTextField() {
    String lone = "x\uD800y";
    fx.rejects(
        IAE,
        tx -> outbox.record(tx, lone, "1", "t", "{}"),
        "event.aggregateType must be valid UTF-16",
        "unpaired surrogate U+D800 at index 1");
    fx.rejects(
        IAE, tx -> outbox.record(tx, "a", "id\uDC00", "t", "{}"), "event.aggregateId", "U+DC00");
    fx.rejects(IAE, tx -> outbox.record(tx, "a", "1", "\uD800", "{}"), "event.eventType");
    rejectsHeader(lone, "v", "event.headers['x\uD800y'] name must be valid UTF-16");
    rejectsHeader("k", lone, "event.headers['k'] must be valid UTF-16");
    fx.rejects(
        IAE,
        tx -> outbox.record(tx, "a", "1", "t", "\"" + lone + "\""),
        "event.payload",
        "unpaired UTF-16 surrogate U+D800");
    // Two ids that differ only in their lone surrogate would both have been stored as "id?".
    fx.rejects(IAE, tx -> outbox.record(tx, "a", "id\uD801", "t", "{}"), "event.aggregateId");
    // A proper pair is one character.
    UUID id =
        fx.dsl.transactionResult(tx -> outbox.record(tx.dsl(), "a", "\uD83D\uDE00", "t", "{}"));
    assertThat(aggregateId(id)).isEqualTo("\uD83D\uDE00");
  }

  @Test
  void refusesUnstorableCharactersInTypesAndIds() {
    fx.rejects(
        IAE,
        tx -> outbox.record(tx, "a", "1\u0000", "t", "{}"),
        "event.aggregateId",
        "U+0000",
        "but did at index 1");
    rejectsHeader("k", "\0", "event.headers['k']", "U+0000");
  }

  // ---- lengths, each in the unit PostgreSQL enforces for its column ----

  @Test
  void typesAndIdsCountCharactersAsVarchar255Does() {
    String tooLong = "x".repeat(256);
    fx.rejects(
        IAE,
        tx -> outbox.record(tx, tooLong, "1", "t", "{}"),
        "event.aggregateType",
        "at most 255 characters but was 256");
    fx.rejects(IAE, tx -> outbox.record(tx, "a", tooLong, "t", "{}"), "event.aggregateId", "255");
    fx.rejects(IAE, tx -> outbox.record(tx, "a", "1", tooLong, "{}"), "event.eventType", "255");
    // 255 characters of 3 or 4 UTF-8 bytes (510 UTF-16 units for the emoji) fit varchar(255).
    String euros = "\u20ac".repeat(255);
    String emoji = "\uD83D\uDE00".repeat(255);
    UUID id = fx.dsl.transactionResult(tx -> outbox.record(tx.dsl(), euros, emoji, "t", "{}"));
    assertThat(aggregateId(id)).isEqualTo(emoji);
    fx.rejects(
        IAE,
        tx -> outbox.record(tx, "a", emoji + "\uD83D\uDE00", "t", "{}"),
        "event.aggregateId must be at most 255 characters but was 256");
  }

  @Test
  void headersCountUtf8BytesAsJsonbDoes() {
    String name255 = "n".repeat(255);
    String value8192 = "\u00e9".repeat(4096); // 8,192 bytes
    UUID id =
        fx.dsl.transactionResult(
            tx ->
                outbox.record(
                    tx.dsl(),
                    OutboxEvent.builder("a", "1", "t")
                        .payload("{}")
                        .header(name255, value8192)
                        .build()));
    assertThat(fx.stored(OUTBOX_EVENTS.HEADERS, id).data()).contains(value8192);
    rejectsHeader("\u00e9".repeat(128), "v", "name must be at most 255 bytes of UTF-8 but was 256");
    rejectsHeader(
        "k",
        value8192 + "x",
        "event.headers['k'] must be at most 8192 bytes of UTF-8 but was 8193");
    rejectsHeader(" ", "v", "event.headers[' '] name must not be blank but was ' '");
  }

  @Test
  void payloadsCountUtf8Bytes() {
    Outbox small = fx.writer().maxPayloadBytes(10).build();
    assertThat(stored(small, "\"\u00e9\u00e9\u00e9\u00e9\""))
        .isEqualTo("\"\u00e9\u00e9\u00e9\u00e9\"");
    rejectsPayload(
        small, "\"\u00e9\u00e9\u00e9\u00e9\u00e9\"", "at most 10 bytes of JSON but was 12");
  }

  // ---- notBefore ----

  @Test
  void notBeforeMustBeWithinTimestamptzRange() {
    for (Instant bad :
        List.of(
            Instant.MAX,
            Instant.MIN,
            Instant.parse("+294277-01-01T00:00:00Z"),
            Instant.parse("+294276-12-31T23:59:59.9999991Z"),
            Instant.parse("-4713-11-23T23:59:59.999999999Z"))) {
      fx.rejects(
          IAE,
          tx ->
              outbox.record(
                  tx, OutboxEvent.builder("a", "1", "t").payload("{}").notBefore(bad).build()),
          "event.notBefore must be between -4713-11-24T00:00:00Z and"
              + " +294276-12-31T23:59:59.999999Z (PostgreSQL's timestamptz range) but was "
              + bad);
    }
    for (Instant edge :
        List.of(
            Instant.parse("-4713-11-24T00:00:00Z"),
            Instant.parse("+294276-12-31T23:59:59.999999Z"))) {
      assertThat(storedNotBefore(edge)).isEqualTo(edge);
    }
    // Microseconds, rounded up so the event is never due early.
    assertThat(storedNotBefore(Instant.parse("2030-01-01T00:00:00.123456001Z")))
        .isEqualTo(Instant.parse("2030-01-01T00:00:00.123457Z"));
  }

  private Instant storedNotBefore(Instant notBefore) {
    UUID id =
        fx.dsl.transactionResult(
            tx ->
                outbox.record(
                    tx.dsl(),
                    OutboxEvent.builder("a", "1", "t").payload("{}").notBefore(notBefore).build()));
    return fx.stored(OUTBOX_EVENTS.RETRY_AFTER, id).toInstant();
  }

  // ---- maxPayloadBytes always fits jsonb ----

  @Test
  void jsonbOfWorstCaseTextStaysWithinTheGrowthTheCeilingAssumes() {
    // The shapes whose binary jsonb is largest per byte of text; the ceiling assumes at most 6x.
    DSLContext dsl = fx.dsl;
    for (String element : List.of("0", "1", "-0", "[0]", "[[0]]", "{\"\":0}", "[]", "0.1")) {
      String text = "[" + (element + ",").repeat(100_000) + element + "]";
      long jsonb =
          dsl.select(
                  org.jooq.impl.DSL.field(
                      "pg_column_size(cast({0} as jsonb))",
                      Long.class, org.jooq.impl.DSL.val(text)))
              .fetchSingle()
              .value1();
      assertThat(jsonb).as(element).isLessThanOrEqualTo(6L * text.length() + 16);
    }
    assertThat(6L * Outbox.Builder.MAX_PAYLOAD_BYTES_LIMIT + 16).isLessThan(268_435_455L);
  }

  private String aggregateId(UUID id) {
    return fx.stored(OUTBOX_EVENTS.AGGREGATE_ID, id);
  }
}
