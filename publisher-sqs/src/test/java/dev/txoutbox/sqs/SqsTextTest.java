package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SqsTextTest {

  @ParameterizedTest
  @ValueSource(strings = {"traceparent", "outbox-event-id", "a.b_c-D9", "awsome", "Amazonian"})
  void acceptsAttributeNamesSqsAccepts(String name) {
    assertThat(SqsText.isValidAttributeName(name)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "has space",
        "slash/",
        "ünï",
        ".lead",
        "trail.",
        "dou..ble",
        "AWS.x",
        "amazon.y"
      })
  void refusesAttributeNamesSqsRefuses(String name) {
    assertThat(SqsText.isValidAttributeName(name)).isFalse();
  }

  @Test
  void refusesAttributeNamesLongerThan256Characters() {
    assertThat(SqsText.isValidAttributeName("a".repeat(256))).isTrue();
    assertThat(SqsText.isValidAttributeName("a".repeat(257))).isFalse();
  }

  @Test
  void findsTheFirstCharacterSqsRefuses() {
    assertThat(SqsText.firstInvalidChar("tab\tnewline\ncafé ✓ 😀")).isEqualTo(-1);
    assertThat(SqsText.firstInvalidChar("ab\u0000")).isEqualTo(2);
    assertThat(SqsText.firstInvalidChar("\ufffe")).isZero();
    assertThat(SqsText.firstInvalidChar("x\ud800")).isEqualTo(1);
  }

  @Test
  void measuresUtf8LikeTheEncoder() {
    String text = "a é ✓ 😀";
    assertThat(SqsText.utf8Length(text)).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
  }

  @Test
  void usesAnAggregateIdAsGroupIdWhenSqsAcceptsIt() {
    assertThat(SqsText.groupId("order-42/eu:1")).isEqualTo("order-42/eu:1");
    assertThat(SqsText.groupId("x".repeat(128))).isEqualTo("x".repeat(128));
  }

  @Test
  void hashesAnAggregateIdSqsRefusesAsGroupIdStably() {
    String tooLong = "x".repeat(129);
    assertThat(SqsText.groupId(tooLong))
        .startsWith("sha256-")
        .hasSize(71)
        .isEqualTo(SqsText.groupId(tooLong))
        .isNotEqualTo(SqsText.groupId(tooLong + "y"));
    assertThat(SqsText.groupId("has space")).startsWith("sha256-");
    assertThat(SqsText.groupId("ünï")).startsWith("sha256-");
  }
}
