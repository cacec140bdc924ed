package dev.txoutbox.cli;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.txoutbox.spi.Printable;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code --json} outputs, written by Jackson: one compact document, keys in the order they are
 * put, absent values as {@code null}, timestamps as ISO-8601 UTC strings ({@link
 * Instant#toString()}). Every control character {@link Printable} knows (C0, DEL, C1, line
 * separators, bidirectional controls) is escaped, in lower-case hex ({@code \u001b}), so a terminal
 * showing the JSON never acts on it while a parser reads every value exactly. Thread-safe.
 */
final class Json {

  private static final JsonMapper MAPPER =
      JsonMapper.builder(
              new JsonFactoryBuilder()
                  .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
                  .characterEscapes(new ControlEscapes())
                  .build())
          .build();

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static ArrayNode array() {
    return MAPPER.createArrayNode();
  }

  /** Puts {@code time} as its ISO-8601 text, or null. */
  static ObjectNode put(ObjectNode object, String name, Instant time) {
    return object.put(name, time == null ? null : time.toString());
  }

  /** Puts {@code json} (a stored payload, already valid JSON) as it is, or null. */
  static ObjectNode putRaw(ObjectNode object, String name, String json) {
    return json == null ? object.putNull(name) : object.putRawValue(name, new RawValue(json));
  }

  /** Puts an object of {@code map}'s entries, in its order. */
  static ObjectNode put(ObjectNode object, String name, Map<String, String> map) {
    ObjectNode entries = object.putObject(name);
    map.forEach(entries::put);
    return object;
  }

  /** {@code node} as one line of compact JSON. */
  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree must be writable but was not", e);
    }
  }

  /** JSON's own escapes, plus {@code \\uXXXX} for DEL and every non-ASCII control character. */
  private static final class ControlEscapes extends CharacterEscapes {
    private final int[] ascii = standardAsciiEscapesForJSON();

    ControlEscapes() {
      ascii[0x7f] = ESCAPE_CUSTOM;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return Printable.isControl(ch)
          ? new SerializedString(String.format(Locale.ROOT, "\\u%04x", ch))
          : null;
    }
  }
}
