package dev.txoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.internal.json.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The headers' fast path against the general parser: what it reads, it reads as the parser does;
 * the rest it leaves to the parser.
 */
class PlainHeadersTest {

  @Test
  void readsJsonbObjectsOfPlainStringsAsTheGeneralParserDoes() {
    for (String json :
        new String[] {
          "{\"traceparent\": \"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"}",
          "{\"a\": \"\", \"bb\": \"x y\", \"tenant\": \"acme {[,:]} ~\"}",
          "{\"a\":\"1\",\"b\":\"2\"}",
          "{ \"a\" : \"1\" , \"b\" : \"2\" }",
          "{\"\": \"empty name\"}"
        }) {
      Map<String, String> plain = RelayStore.plainHeaders(json);
      assertThat(plain).as(json).isNotNull().isEqualTo(Json.readStringMap(json));
      assertThat(RelayStore.headers(json)).as(json).isEqualTo(plain);
    }
  }

  @Test
  void leavesEverythingElseToTheGeneralParser() {
    for (String json :
        new String[] {
          "{\"a\": \"caf\u00e9\"}", // not ASCII
          "{\"a\": \"line\\nbreak\"}", // an escape
          "{\"a\": \"quote \\\" inside\"}",
          "{\"a\": 1}", // not a string
          "{\"a\": null}",
          "{\"a\": {\"b\": \"c\"}}",
          "{\"a\":\t\"b\"}", // whitespace jsonb does not write
          "{\"a\": \"1\", \"a\": \"2\"}", // a duplicate name: the parser keeps the last
          "{\"a\": \"b\"} ",
          "{ }"
        }) {
      assertThat(RelayStore.plainHeaders(json)).as(json).isNull();
      assertThat(RelayStore.headers(json)).as(json).isEqualTo(Json.readStringMap(json));
    }
    assertThat(RelayStore.headers("{\"a\": \"1\", \"a\": \"2\"}")).isEqualTo(Map.of("a", "2"));
  }

  @Test
  void refusesWhatTheGeneralParserRefuses() {
    for (String bad :
        new String[] {
          "{\"a\" \"b\"}",
          "{\"a\": \"b\",}",
          "{\"a\": \"b}",
          "{\"a\": \"b\" \"c\": \"d\"}",
          "{\"a\": \"raw\u0001control\"}",
          "{\"a\"}",
          "{,}",
          "{\"a\": \"b\"",
          "[\"a\"]"
        }) {
      assertThat(RelayStore.plainHeaders(bad)).as(bad).isNull();
      assertThatThrownBy(() -> RelayStore.headers(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("headers must be a JSON object");
    }
  }

  @Test
  void severalHeadersKeepTheDocumentsOrderAsTheGeneralParserDoes() {
    String json = "{\"z\": \"1\", \"a\": \"2\", \"m\": \"3\", \"b\": \"4\"}";
    assertThat(RelayStore.plainHeaders(json).keySet()).containsExactly("z", "a", "m", "b");
    assertThat(RelayStore.headers(json).keySet())
        .containsExactlyElementsOf(Json.readStringMap(json).keySet());
  }
}
