package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeadersJsonTest {

  @Test
  void writesOnlyAsciiSqsAcceptsAndReadsItBack() {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("quote\"back\\slash", "line\nfeed\ttab\rreturn");
    values.put("café ✓ 😀", "bell\u0007 nul\u0000 \uffff del\u007f");
    values.put("lone", "\ud800 surrogates \udc00");
    values.put("", "");

    String json = HeadersJson.write(values);

    assertThat(json.chars()).allMatch(c -> c >= 0x20 && c <= 0x7f);
    assertThat(SqsText.isValidText(json)).isTrue();
    assertThat(HeadersJson.read(json)).containsExactlyEntriesOf(values);
  }

  @Test
  void escapesAsJsonDoes() {
    assertThat(HeadersJson.write(Map.of("a", "é\n\"")))
        .isEqualToIgnoringCase("{\"a\":\"\\u00e9\\n\\\"\"}");
  }

  @Test
  void readsWhatEarlierVersionsWrote() {
    // The hand-written writer of 0.1.0 snapshots: lower-case hex escapes, every char outside
    // printable ASCII escaped.
    assertThat(HeadersJson.read("{\"caf\\u00e9\":\"\\u2713 \\ud83d\\ude00\\u0007\\t\"}"))
        .containsExactly(Map.entry("café", "✓ 😀\u0007\t"));
    assertThat(HeadersJson.read(" { \"a\" : \"b\\/c\" , \"d\":\"\\u00E9\" } "))
        .containsExactly(Map.entry("a", "b/c"), Map.entry("d", "é"));
    assertThat(HeadersJson.read("{}")).isEmpty();
  }

  @Test
  void readsNamesAsLongAsAMessageCanHold() {
    String name = "n".repeat(60_000);

    assertThat(HeadersJson.read(HeadersJson.write(Map.of(name, "v")))).containsEntry(name, "v");
  }

  @Test
  void refusesAnythingButAFlatObjectOfStrings() {
    for (String bad :
        new String[] {
          "{\"a\":1}",
          "{\"a\":{\"b\":\"c\"}}",
          "[\"a\"]",
          "\"a\"",
          "",
          "{\"a\":\"b\"",
          "{\"a\":\"b\"} x",
          "{\"a\":\"b\"} {}",
          "{a:\"b\"}"
        }) {
      assertThatThrownBy(() -> HeadersJson.read(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("outbox-headers must be a flat JSON object of strings but ");
    }
  }
}
