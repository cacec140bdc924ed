package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlatJsonTest {

  @Test
  void roundTripsQuotesEscapesAndNonAscii() {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("quote\"back\\slash", "line\nfeed\ttab\rreturn");
    values.put("café ✓ 😀", "bell\u0007 nul\u0000 \uffff");
    values.put("", "");

    String json = FlatJson.write(values);

    assertThat(json).matches("[\\x20-\\x7e]*");
    assertThat(FlatJson.read(json)).isEqualTo(values);
  }

  @Test
  void readsWhitespaceAndEscapedSlashes() {
    assertThat(FlatJson.read(" { \"a\" : \"b\\/c\" , \"d\":\"\\u00e9\" } "))
        .containsExactly(Map.entry("a", "b/c"), Map.entry("d", "é"));
    assertThat(FlatJson.read("{}")).isEmpty();
  }

  @Test
  void refusesAnythingButAFlatObjectOfStrings() {
    assertThatThrownBy(() -> FlatJson.read("{\"a\":1}"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FlatJson.read("[\"a\"]")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FlatJson.read("{\"a\":\"b\""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FlatJson.read("{\"a\":\"b\"} x"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
