package dev.txoutbox.internal.writer;

import dev.txoutbox.HeadersProvider;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.PayloadSerializer;
import dev.txoutbox.internal.json.Json;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.JSONB;

/**
 * Checks an {@link OutboxEvent} against the column limits and turns it into the values of one row,
 * before anything is written. Every message names the field and the limit.
 */
final class EventValidator {

  /** The varchar(255) columns: aggregate type, aggregate id, event type. */
  static final int MAX_NAME_LENGTH = 255;

  /** Header names: at most this many characters. */
  static final int MAX_HEADER_NAME_LENGTH = 255;

  /** Header values: at most this many characters. */
  static final int MAX_HEADER_VALUE_LENGTH = 8192;

  /** At most this many headers per event (brokers limit them too: SQS allows 10 attributes). */
  static final int MAX_HEADERS = 64;

  private final PayloadSerializer serializer;
  private final HeadersProvider headersProvider;
  private final int maxPayloadBytes;

  EventValidator(
      PayloadSerializer serializer, HeadersProvider headersProvider, int maxPayloadBytes) {
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
    JSONB payload = payload(event.payload(), field + ".payload");
    JSONB headers = headers(event.headers(), field + ".headers");
    return new EventRow(
        aggregateType,
        aggregateId,
        eventType,
        payload,
        headers,
        event.notBefore() == null ? null : event.notBefore().atOffset(ZoneOffset.UTC));
  }

  private static String name(String value, String field) {
    if (value == null) {
      throw new NullPointerException(field);
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank");
    }
    int length = value.codePointCount(0, value.length());
    if (length > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          field + " must be at most " + MAX_NAME_LENGTH + " characters but has " + length);
    }
    if (value.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          field + " must not contain U+0000 (PostgreSQL cannot store it)");
    }
    return value;
  }

  private JSONB payload(Object payload, String field) {
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
              + " is a "
              + payload.getClass().getName()
              + "; pass JSON text, UTF-8 JSON bytes or JSONB, or build the Outbox with a"
              + " payloadSerializer");
    } else {
      try {
        json = serializer.toJson(payload);
      } catch (Exception e) {
        throw new IllegalArgumentException(
            field + " of type " + payload.getClass().getName() + " cannot be serialised: " + e, e);
      }
      if (json == null) {
        throw new IllegalArgumentException(field + ": the payloadSerializer returned null");
      }
    }
    // Characters are at most 3 UTF-8 bytes (4 for a surrogate pair, which is 2 chars): a cheap
    // bound first, the exact count only when it matters.
    if ((long) json.length() * 3 > maxPayloadBytes) {
      int bytes = utf8Length(json);
      if (bytes > maxPayloadBytes) {
        throw new IllegalArgumentException(
            field + " must be at most " + maxPayloadBytes + " bytes of JSON but has " + bytes);
      }
    }
    String problem = Json.problem(json);
    if (problem != null) {
      throw new IllegalArgumentException(field + " is not valid JSON: " + problem);
    }
    return JSONB.valueOf(json);
  }

  private JSONB headers(Map<String, String> own, String field) {
    Map<String, String> provided = headersProvider.headers();
    Map<String, String> merged;
    if (provided == null || provided.isEmpty()) {
      merged = own;
    } else {
      merged = new LinkedHashMap<>(provided);
      merged.putAll(own);
    }
    if (merged.size() > MAX_HEADERS) {
      throw new IllegalArgumentException(
          field + " must hold at most " + MAX_HEADERS + " headers but holds " + merged.size());
    }
    // Raw or unchecked maps can smuggle in non-strings: check every entry's real type.
    for (Map.Entry<?, ?> entry : ((Map<?, ?>) merged).entrySet()) {
      Object name = entry.getKey();
      Object value = entry.getValue();
      if (!(name instanceof String n)) {
        throw new IllegalArgumentException(
            field + " names must be strings but one is " + typeOf(name));
      }
      if (n.isBlank() || n.length() > MAX_HEADER_NAME_LENGTH) {
        throw new IllegalArgumentException(
            field
                + " name '"
                + abbreviate(n)
                + "' must be 1 to "
                + MAX_HEADER_NAME_LENGTH
                + " characters, not blank");
      }
      if (!(value instanceof String v)) {
        throw new IllegalArgumentException(
            field + "['" + n + "'] must be a string but is " + typeOf(value));
      }
      if (v.length() > MAX_HEADER_VALUE_LENGTH) {
        throw new IllegalArgumentException(
            field
                + "['"
                + n
                + "'] must be at most "
                + MAX_HEADER_VALUE_LENGTH
                + " characters but has "
                + v.length());
      }
      if (n.indexOf('\0') >= 0 || v.indexOf('\0') >= 0) {
        throw new IllegalArgumentException(
            field + "['" + abbreviate(n) + "'] must not contain U+0000");
      }
    }
    return merged.isEmpty() ? EMPTY_HEADERS : JSONB.valueOf(Json.writeStringMap(merged));
  }

  private static final JSONB EMPTY_HEADERS = JSONB.valueOf("{}");

  private static String utf8(byte[] bytes, String field) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(field + " bytes are not valid UTF-8", e);
    }
  }

  private static int utf8Length(String s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static String typeOf(Object o) {
    return o == null ? "null" : "a " + o.getClass().getName();
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "…";
  }
}
