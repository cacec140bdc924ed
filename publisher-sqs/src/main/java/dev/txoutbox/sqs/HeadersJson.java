package dev.txoutbox.sqs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.protocols.jsoncore.JsonWriter;
import software.amazon.awssdk.thirdparty.jackson.core.JsonFactory;
import software.amazon.awssdk.thirdparty.jackson.core.JsonParser;
import software.amazon.awssdk.thirdparty.jackson.core.JsonProcessingException;
import software.amazon.awssdk.thirdparty.jackson.core.JsonToken;
import software.amazon.awssdk.thirdparty.jackson.core.StreamReadConstraints;
import software.amazon.awssdk.thirdparty.jackson.core.json.JsonWriteFeature;

/**
 * The value of the {@link SqsHeaders#OVERFLOW_ATTRIBUTE} attribute: a flat JSON object of string
 * values, written and read with the AWS SDK's own JSON support (its {@link JsonWriter} and the
 * Jackson core it ships). Every character outside ASCII is written as a {@code \}{@code uXXXX}
 * escape, and control characters as JSON escapes, so the text is ASCII from {@code 0x20} to {@code
 * 0x7F}, which SQS accepts whatever the headers contain. Reads any JSON object of strings, such as
 * the values earlier versions wrote, except that Jackson refuses a name holding an unpaired
 * surrogate (which no PostgreSQL text can hold; in a value it is read back). Stateless and
 * thread-safe.
 */
final class HeadersJson {

  /**
   * Shared, as Jackson advises. Escapes everything outside ASCII when writing; reads names as long
   * as a message can hold (Jackson's default stops at 50,000 characters).
   */
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
          .streamReadConstraints(
              StreamReadConstraints.builder().maxNameLength(SqsPublisher.SQS_MAX_BYTES).build())
          .build();

  private HeadersJson() {}

  /** {@code {"name":"value",...}} in the map's iteration order, in ASCII SQS accepts. */
  static String write(Map<String, String> values) {
    JsonWriter json = JsonWriter.builder().jsonFactory(JSON).build();
    json.writeStartObject();
    values.forEach((name, value) -> json.writeFieldName(name).writeValue(value));
    json.writeEndObject();
    return new String(json.getBytes(), StandardCharsets.US_ASCII);
  }

  /**
   * The entries of a JSON object whose values are all strings, in the object's order; where a name
   * repeats, the last value counts.
   *
   * @throws IllegalArgumentException if {@code json} is not such an object, or has anything after
   *     it
   */
  static Map<String, String> read(String json) {
    try (JsonParser parser = JSON.createParser(json)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw notFlat("does not start with '{'");
      }
      Map<String, String> values = new LinkedHashMap<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        if (parser.nextToken() != JsonToken.VALUE_STRING) {
          throw notFlat("the value of '" + name + "' is not a string");
        }
        values.put(name, parser.getText());
      }
      if (parser.nextToken() != null) { // the parser ends an object only at its '}'
        throw notFlat("has more after its '}'");
      }
      return values;
    } catch (JsonProcessingException e) {
      throw notFlat("is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) { // cannot happen when reading a String
      throw new IllegalArgumentException("cannot read the JSON text", e);
    }
  }

  private static IllegalArgumentException notFlat(String why) {
    return new IllegalArgumentException(
        SqsHeaders.OVERFLOW_ATTRIBUTE + " must be a flat JSON object of strings but " + why);
  }
}
