package dev.txoutbox.cli;

import dev.txoutbox.spi.Printable;
import java.time.Instant;
import java.util.Map;

/**
 * Writes one compact JSON document, for the {@code --json} outputs: objects, arrays, strings,
 * numbers, booleans, null and raw JSON (stored payloads). Commas are placed automatically. Not
 * thread-safe; one instance per document.
 */
final class JsonWriter {

  private final StringBuilder out = new StringBuilder();
  private boolean needComma;

  JsonWriter beginObject() {
    comma();
    out.append('{');
    needComma = false;
    return this;
  }

  JsonWriter endObject() {
    out.append('}');
    needComma = true;
    return this;
  }

  JsonWriter beginArray() {
    comma();
    out.append('[');
    needComma = false;
    return this;
  }

  JsonWriter endArray() {
    out.append(']');
    needComma = true;
    return this;
  }

  /** Writes {@code "name":} ; the value follows. */
  JsonWriter name(String name) {
    comma();
    quote(name);
    out.append(':');
    needComma = false;
    return this;
  }

  JsonWriter value(String value) {
    comma();
    if (value == null) {
      out.append("null");
    } else {
      quote(value);
    }
    needComma = true;
    return this;
  }

  JsonWriter value(long value) {
    comma();
    out.append(value);
    needComma = true;
    return this;
  }

  JsonWriter value(double value) {
    comma();
    out.append(Double.isFinite(value) ? Double.toString(value) : "null");
    needComma = true;
    return this;
  }

  JsonWriter value(boolean value) {
    comma();
    out.append(value);
    needComma = true;
    return this;
  }

  /** An ISO-8601 UTC timestamp, or null. */
  JsonWriter value(Instant value) {
    return value(value == null ? null : value.toString());
  }

  /** A JSON text as it is (a stored payload, already valid JSON), or null. */
  JsonWriter raw(String json) {
    comma();
    out.append(json == null ? "null" : json);
    needComma = true;
    return this;
  }

  /** An object of string values. */
  JsonWriter value(Map<String, String> map) {
    beginObject();
    for (Map.Entry<String, String> e : map.entrySet()) {
      name(e.getKey()).value(e.getValue());
    }
    return endObject();
  }

  JsonWriter field(String name, String value) {
    return name(name).value(value);
  }

  JsonWriter field(String name, long value) {
    return name(name).value(value);
  }

  @Override
  public String toString() {
    return out.toString();
  }

  private void comma() {
    if (needComma) {
      out.append(',');
    }
  }

  private void quote(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (Printable.isControl(c)) { // escaped, so a terminal showing the JSON never acts on it
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
