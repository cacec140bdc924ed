package dev.txoutbox.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void acceptsEveryKindOfJsonValue() {
    for (String ok :
        new String[] {
          "{}",
          "[]",
          "0",
          "-1.5e+10",
          "\"x\"",
          "true",
          "false",
          "null",
          " {\"a\":[1,{\"b\":null}]} ",
          "\"\\u00e9\\n\\\"\"",
          "[1E3, 0.5, -0]"
        }) {
      assertThat(Json.problem(ok)).as(ok).isNull();
    }
  }

  @Test
  void rejectsWhatPostgresJsonbRejects() {
    for (String bad :
        new String[] {
          "",
          "{",
          "{\"a\"}",
          "{'a':1}",
          "[1,]",
          "01",
          "1.",
          "+1",
          "tru",
          "\"\\x\"",
          "{} []",
          "\"\\u0000\"",
          "\"a\u0001\"",
          "NaN"
        }) {
      assertThat(Json.problem(bad)).as(bad).isNotNull();
    }
  }

  @Test
  void refusesNestingDeeperThanTheLimit() {
    String deep = "[".repeat(Json.MAX_DEPTH + 2) + "]".repeat(Json.MAX_DEPTH + 2);
    assertThat(Json.problem(deep)).contains("nested deeper than 500 levels");
  }

  @Test
  void measuresTheTextPostgresWritesBack() {
    // Each pair: input, and PostgreSQL 15's jsonb output for it.
    String[][] cases = {
      {"{\"a\":1,\"b\":[1,2,{}]}", "{\"a\": 1, \"b\": [1, 2, {}]}"},
      {" [ true ,false, null ] ", "[true, false, null]"},
      {"1E+2", "100"},
      {"0.1e1", "1"},
      {"100e-2", "1.00"},
      {"-0", "0"},
      {"-0.0", "0.0"},
      {"1.50", "1.50"},
      {"1e-3", "0.001"},
      {"\"\\u0022\\/\\u0001\\u00e9\"", "\"\\\"/\\u0001\u00e9\""},
      {"\"\\uD83D\\uDE00\"", "\"\uD83D\uDE00\""},
    };
    for (String[] c : cases) {
      Json.Size size = Json.check(c[0]);
      assertThat(size.renderedBytes()).as(c[0]).isEqualTo(utf8(c[1]));
      assertThat(size.textBytes()).as(c[0]).isEqualTo(utf8(c[0]));
    }
    assertThat(Json.check("1e131071").renderedBytes()).isEqualTo(131_072);
    assertThat(Json.check("1e-16383").renderedBytes()).isEqualTo(16_385);
  }

  @Test
  void numbersFollowPostgresNumericLimits() {
    for (String ok :
        new String[] {
          "1e131071",
          "9.9999e131071",
          "0.00001e131076",
          "1e-16383",
          "0e-16383",
          "0e1073741822",
          "1e+0000000000000000005"
        }) {
      assertThat(Json.problem(ok)).as(ok).isNull();
    }
    for (String bad :
        new String[] {
          "1e131072",
          "1e-16384",
          "0e-16384",
          "1.00e-16382",
          "0e1073741823",
          "1e-1073741823",
          "1e99999999999999999999"
        }) {
      assertThat(Json.problem(bad)).as(bad).contains("outside PostgreSQL's numeric range");
    }
  }

  @Test
  void unicodeEscapesFollowPostgres() {
    assertThat(Json.problem("\"\\uD800\\uDC00\"")).isNull();
    assertThat(Json.problem("\"\\uD800\"")).contains("followed by a \\u low surrogate");
    assertThat(Json.problem("\"\\uDC00\"")).contains("low surrogate must follow");
    assertThat(Json.problem("\"\\uD800\\uD800\"")).contains("must not follow a high");
    assertThat(Json.problem("\"\\u+041\"")).contains("four hexadecimal digits");
    assertThat(Json.problem("\"\\u\uFF10041\"")).contains("four hexadecimal digits");
    assertThat(Json.problem("\"\uD800\"")).contains("unpaired UTF-16 surrogate U+D800");
  }

  private static long utf8(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
  }

  @Test
  void stringMapsRoundTripWithEscapes() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("traceparent", "00-abc-01");
    headers.put("quote\"back\\slash", "line\nbreak\ttab\u0001");
    String json = Json.writeStringMap(headers);
    assertThat(Json.problem(json)).isNull();
    assertThat(Json.readStringMap(json)).isEqualTo(headers);
    assertThat(Json.readStringMap("{\"n\": 5, \"o\": {\"x\": 1}}"))
        .containsEntry("n", "5")
        .containsEntry("o", "{\"x\": 1}");
    assertThatThrownBy(() -> Json.readStringMap("[]")).isInstanceOf(IllegalArgumentException.class);
  }
}
