package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The running transactions of a snapshot's text form, by the 32 bits {@code pgoutput} sends. */
class WalStoreSnapshotTest {

  @Test
  void readsTheRunningIdsOfASnapshot() {
    assertThat(WalStore.parseRunning("100:104:100,102")).containsExactlyInAnyOrder(100, 102);
    assertThat(WalStore.parseRunning("100:100:")).isEmpty();
  }

  @Test
  void keepsTheLow32BitsOfAnIdPastTheFirstEpoch() {
    long epochTwo = (2L << 32) + 7; // the 7th id of epoch 2
    long high = (1L << 32) + 0xFFFF_FFF0L; // an id of epoch 1 above 2^31 in its low bits
    assertThat(WalStore.parseRunning(high + ":" + (epochTwo + 1) + ":" + high + "," + epochTwo))
        .containsExactlyInAnyOrder((int) 0xFFFF_FFF0L, 7);
  }

  @Test
  void refusesWhatIsNotASnapshot() {
    assertThatThrownBy(() -> WalStore.parseRunning("100"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a snapshot: 100");
  }
}
