package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrintableTest {

  @Test
  void escapesEveryControlCharacterVisibly() {
    assertThat(Printable.of("order\u001b[2J.paid\nforged\r\tx\u007f\u009b\u202e\u2028"))
        .isEqualTo("order\\u001b[2J.paid\\nforged\\r\\tx\\u007f\\u009b\\u202e\\u2028");
    assertThat(Printable.of("plain text, ünïcode and emoji \uD83D\uDE00"))
        .isEqualTo("plain text, ünïcode and emoji \uD83D\uDE00");
    assertThat(Printable.of(null)).isNull();
  }

  @Test
  void keepingLinesLeavesLineFeedsAndTabsForStackTraces() {
    assertThat(Printable.keepingLines("a\n\tat b\u001b[0m\r")).isEqualTo("a\n\tat b\\u001b[0m\\r");
  }
}
