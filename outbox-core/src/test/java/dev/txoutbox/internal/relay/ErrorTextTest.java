package dev.txoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ErrorTextTest {

  @Test
  void replacesWhatPostgresqlTextCannotHold() {
    assertThat(ErrorText.sanitize("a\u0000b\uD800c\uDC00d")).isEqualTo("a\uFFFDb\uFFFDc\uFFFDd");
  }

  @Test
  void keepsValidPairsAndPlainText() {
    assertThat(ErrorText.sanitize("emoji \uD83D\uDE00 ok")).isEqualTo("emoji \uD83D\uDE00 ok");
    assertThat(ErrorText.sanitize(null)).isEqualTo("(no reason given)");
  }

  @Test
  void cutsAtTheLimitWithoutSplittingAPair() {
    String longText = "x".repeat(ErrorText.MAX_LENGTH - 2) + "\uD83D\uDE00" + "tail";
    String cut = ErrorText.sanitize(longText);
    assertThat(cut).hasSize(ErrorText.MAX_LENGTH - 1).endsWith("x…");
    assertThat(ErrorText.sanitize("y".repeat(ErrorText.MAX_LENGTH))).hasSize(ErrorText.MAX_LENGTH);
    assertThat(ErrorText.sanitize("y".repeat(5000))).hasSize(ErrorText.MAX_LENGTH).endsWith("…");
  }
}
