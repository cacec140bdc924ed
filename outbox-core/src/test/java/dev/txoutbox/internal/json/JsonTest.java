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
    assertThat(Json.problem(deep)).contains("nesting");
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
