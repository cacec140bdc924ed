package dev.txoutbox.internal.writer;

import dev.txoutbox.HeadersProvider;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.PayloadSerializer;
import dev.txoutbox.internal.json.Json;
import dev.txoutbox.spi.Printable;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jooq.JSONB;
import org.jspecify.annotations.Nullable;

/**
 * Checks an {@link OutboxEvent} against the column limits and turns it into the values of one row,
 * before anything is written. Every message names the field and the limit. Each length is counted
 * in the unit PostgreSQL enforces for its column: characters (code points) for the {@code
 * varchar(255)} columns, UTF-8 bytes for what lands in {@code jsonb}.
 */
final class EventValidator {

  /** The varchar(255) columns: aggregate type, aggregate id, event type; in characters. */
  static final int MAX_NAME_LENGTH = 255;

  /** Header names: at most this many UTF-8 bytes (an AMQP table key's limit too). */
  static final int MAX_HEADER_NAME_BYTES = 255;

  /** Header values: at most this many UTF-8 bytes. */
  static final int MAX_HEADER_VALUE_BYTES = 8192;

  /** At most this many headers per event (brokers limit them too: SQS allows 10 attributes). */
  static final int MAX_HEADERS = 64;

  /** The earliest {@code timestamptz}: 4714-11-24 00:00 BC, UTC. */
  static final Instant MIN_NOT_BEFORE = Instant.parse("-4713-11-24T00:00:00Z");

  /** The latest {@code timestamptz}: 294276-12-31 23:59:59.999999, UTC. */
  static final Instant MAX_NOT_BEFORE = Instant.parse("+294276-12-31T23:59:59.999999Z");

  private static final JSONB EMPTY_HEADERS = JSONB.valueOf("{}");

  private final @Nullable PayloadSerializer serializer;
  private final HeadersProvider headersProvider;
  private final int maxPayloadBytes;

  EventValidator(
      @Nullable PayloadSerializer serializer,
      HeadersProvider headersProvider,
      int maxPayloadBytes) {
    this.serializer = serializer;
    this.headersProvider = headersProvider;
    this.maxPayloadBytes = maxPayloadBytes;
  }

  /**
   * @param field how to name the event in messages, such as {@code event} or {@code events[3]}
   */
  EventRow validate(OutboxEvent event, String field) {
    if (event == null) {
      throw new NullPointerException(field);
    }
    String aggregateType = name(event.aggregateType(), field + ".aggregateType");
    String aggregateId = name(event.aggregateId(), field + ".aggregateId");
    String eventType = name(event.eventType(), field + ".eventType");
    String payload = payload(event.payload(), field + ".payload");
    String headers = headers(event.headers(), field + ".headers");
    return new EventRow(
        aggregateType,
        aggregateId,
        eventType,
        JSONB.valueOf(payload),
        headers == null ? EMPTY_HEADERS : JSONB.valueOf(headers),
        notBefore(event.notBefore(), field + ".notBefore"),
        // UTF-8 bytes on the wire, roughly: payload chars count at most 3 bytes each.
        (long) payload.length() * 3 + (headers == null ? 2 : (long) headers.length() * 3));
  }

  private static String name(String value, String field) {
    if (value == null) {
      throw new NullPointerException(field);
    }
    Text text = Text.scan(value, field);
    if (!text.visible) {
      throw new IllegalArgumentException(field + " must not be blank but was " + shown(value));
    }
    if (text.codePoints > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          field + " must be at most " + MAX_NAME_LENGTH + " characters but was " + text.codePoints);
    }
    return value;
  }

  private String payload(Object payload, String field) {
    String json;
    if (payload instanceof String s) {
      json = s;
    } else if (payload instanceof byte[] bytes) {
      json = utf8(bytes, field);
    } else if (payload instanceof JSONB jsonb) {
      json = jsonb.data();
    } else if (serializer == null) {
      throw new IllegalArgumentException(
          field
              + " must be JSON text, UTF-8 JSON bytes or JSONB (or the Outbox needs a"
              + " payloadSerializer) but was "
              + typeOf(payload));
    } else {
      try {
        json = serializer.toJson(payload);
      } catch (Exception e) {
        throw new IllegalArgumentException(
            field
                + " must be serialisable by the payloadSerializer but "
                + typeOf(payload)
                + " was not: "
                + e,
            e);
      }
      if (json == null) {
        throw new IllegalArgumentException(
            field + " must be serialised to JSON text but the payloadSerializer returned null");
      }
    }
    // Every char is at least one UTF-8 byte: refuse what is surely too large before parsing it.
    if (json.length() > maxPayloadBytes) {
      throw tooLarge(field, Text.utf8Length(json));
    }
    Json.Size size;
    try {
      size = Json.check(json);
    } catch (Json.InvalidJsonException e) {
      throw new IllegalArgumentException(
          field + " must be valid JSON but was not: " + e.getMessage());
    }
    if (size.textBytes() > maxPayloadBytes) {
      throw tooLarge(field, size.textBytes());
    }
    if (size.renderedBytes() > maxPayloadBytes) {
      throw new IllegalArgumentException(
          field
              + " must be at most "
              + maxPayloadBytes
              + " bytes also as PostgreSQL writes it back (jsonb text: numbers in full, a space"
              + " after each ':' and ',') but was "
              + size.renderedBytes()
              + " bytes");
    }
    return json;
  }

  private IllegalArgumentException tooLarge(String field, long bytes) {
    return new IllegalArgumentException(
        field + " must be at most " + maxPayloadBytes + " bytes of JSON but was " + bytes);
  }

  /**
   * @return the headers' JSON text, or null when there are none
   */
  private @Nullable String headers(Map<String, String> own, String field) {
    Map<String, String> provided = headersProvider.headers();
    Map<String, String> merged;
    if (provided == null || provided.isEmpty()) {
      merged = own;
    } else {
      merged = new LinkedHashMap<>(provided);
      merged.putAll(own);
    }
    if (merged.isEmpty()) {
      return null;
    }
    if (merged.size() > MAX_HEADERS) {
      throw new IllegalArgumentException(
          field + " must be at most " + MAX_HEADERS + " headers but was " + merged.size());
    }
    // Raw or unchecked maps can smuggle in non-strings: check every entry's real type.
    for (Map.Entry<?, ?> entry : ((Map<?, ?>) merged).entrySet()) {
      Object name = entry.getKey();
      Object value = entry.getValue();
      if (!(name instanceof String n)) {
        throw new IllegalArgumentException(
            field + " names must be strings but one was " + typeOf(name));
      }
      String nameField = field + "['" + Text.abbreviate(n) + "']";
      Text nameText = Text.scan(n, nameField + " name");
      if (!nameText.visible) {
        throw new IllegalArgumentException(
            nameField + " name must not be blank but was " + shown(n));
      }
      if (nameText.utf8Bytes > MAX_HEADER_NAME_BYTES) {
        throw new IllegalArgumentException(
            nameField
                + " name must be at most "
                + MAX_HEADER_NAME_BYTES
                + " bytes of UTF-8 but was "
                + nameText.utf8Bytes);
      }
      if (!(value instanceof String v)) {
        throw new IllegalArgumentException(
            nameField + " must be a string but was " + typeOf(value));
      }
      Text valueText = Text.scan(v, nameField);
      if (valueText.utf8Bytes > MAX_HEADER_VALUE_BYTES) {
        throw new IllegalArgumentException(
            nameField
                + " must be at most "
                + MAX_HEADER_VALUE_BYTES
                + " bytes of UTF-8 but was "
                + valueText.utf8Bytes);
      }
    }
    return Json.writeStringMap(merged);
  }

  private static @Nullable OffsetDateTime notBefore(@Nullable Instant notBefore, String field) {
    if (notBefore == null) {
      return null;
    }
    if (notBefore.isBefore(MIN_NOT_BEFORE) || notBefore.isAfter(MAX_NOT_BEFORE)) {
      throw new IllegalArgumentException(
          field
              + " must be between "
              + MIN_NOT_BEFORE
              + " and "
              + MAX_NOT_BEFORE
              + " (PostgreSQL's timestamptz range) but was "
              + notBefore);
    }
    // timestamptz holds microseconds: round up, so the event is never due before notBefore.
    int nanosOfMicro = notBefore.getNano() % 1000;
    Instant micros = nanosOfMicro == 0 ? notBefore : notBefore.plusNanos(1000 - nanosOfMicro);
    return micros.atOffset(ZoneOffset.UTC);
  }

  private static String utf8(byte[] bytes, String field) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(field + " bytes must be valid UTF-8 but were not", e);
    }
  }

  private static String typeOf(Object o) {
    return o == null ? "null" : "a " + o.getClass().getName();
  }

  /** A blank text for a message: quoted, shortened, its control characters escaped. */
  private static String shown(String blank) {
    return "'" + Printable.of(Text.abbreviate(blank)) + "'";
  }

  /** What one pass over a text field finds: its lengths and whether it shows anything. */
  private static final class Text {
    int codePoints;
    long utf8Bytes;
    boolean visible;

    /**
     * @throws IllegalArgumentException if {@code s} holds U+0000 or a lone UTF-16 surrogate, which
     *     PostgreSQL cannot store (the driver would silently turn a surrogate into '?')
     */
    static Text scan(String s, String field) {
      Text t = new Text();
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        int cp = c;
        if (c < 0x80) {
          if (c == 0) {
            throw new IllegalArgumentException(
                field
                    + " must not contain U+0000 (PostgreSQL cannot store it) but did at index "
                    + i);
          }
          t.utf8Bytes++;
        } else if (c < 0x800) {
          t.utf8Bytes += 2;
        } else if (Character.isSurrogate(c)) {
          if (!Character.isHighSurrogate(c)
              || i + 1 == s.length()
              || !Character.isLowSurrogate(s.charAt(i + 1))) {
            throw new IllegalArgumentException(
                field
                    + " must be valid UTF-16 but had an unpaired surrogate U+"
                    + Integer.toHexString(c).toUpperCase(Locale.ROOT)
                    + " at index "
                    + i
                    + " (it has no UTF-8 form)");
          }
          cp = Character.toCodePoint(c, s.charAt(++i));
          t.utf8Bytes += 4;
        } else {
          t.utf8Bytes += 3;
        }
        t.codePoints++;
        if (!t.visible && !Character.isWhitespace(cp)) {
          t.visible = true;
        }
      }
      return t;
    }

    static long utf8Length(String s) {
      long bytes = 0;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c < 0x80) {
          bytes++;
        } else if (c < 0x800) {
          bytes += 2;
        } else if (Character.isHighSurrogate(c)
            && i + 1 < s.length()
            && Character.isLowSurrogate(s.charAt(i + 1))) {
          bytes += 4;
          i++;
        } else {
          bytes += 3;
        }
      }
      return bytes;
    }

    static String abbreviate(String s) {
      return s.length() <= 40 ? s : s.substring(0, 40) + "…";
    }
  }
}
