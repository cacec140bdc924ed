package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the WAL relay stores as {@code last_error}. */
class WalStoreTest {

  @Test
  void errorTextIsSafeAndBounded() {
    assertThat(WalStore.errorText(null)).isEqualTo("(no reason given)");
    assertThat(WalStore.errorText("a\u0000b\uD800c𝄞")).isEqualTo("a\uFFFDb\uFFFDc𝄞");
    String exact = "x".repeat(WalStore.MAX_ERROR_LENGTH);
    assertThat(WalStore.errorText(exact)).isEqualTo(exact);
    String longer = "y".repeat(WalStore.MAX_ERROR_LENGTH - 2) + "𝄞" + "z";
    String stored = WalStore.errorText(longer);
    assertThat(stored).hasSize(WalStore.MAX_ERROR_LENGTH - 1).endsWith("y…");
    assertThat(WalStore.errorText("q".repeat(5000)))
        .hasSize(WalStore.MAX_ERROR_LENGTH)
        .endsWith("q…");
  }
}
