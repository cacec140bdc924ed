package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.RelayOption;
import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The WAL relay's options are defined once: the builder's defaults are the definitions', and its
 * errors are the definitions' rules, which a tool says in its own words.
 */
class WalOptionsTest {

  /** A command line's words: flags, and durations as people write them. */
  static final RelayOption.Spelling FLAGS =
      new RelayOption.Spelling() {
        @Override
        public String name(RelayOption<?> option) {
          return option.flag();
        }

        @Override
        public String value(Object value) {
          return value instanceof Duration d ? DurationText.of(d) : String.valueOf(value);
        }
      };

  @Test
  void theBuildersDefaultsAreTheDefinitions() {
    WalRelayBuilder b = WalRelay.builder();
    assertThat(WalOptions.CREATE_IF_MISSING.defaultValue()).isEqualTo(b.createIfMissing).isTrue();
    assertThat(WalOptions.CONCURRENT_BATCHES.defaultValue()).isEqualTo(b.concurrentBatches);
    assertThat(WalOptions.MIN_BATCH_INTERVAL.defaultValue()).isEqualTo(b.minBatchInterval);
    assertThat(WalOptions.RECONNECT_DELAY.defaultValue()).isEqualTo(b.reconnectDelay);
    assertThat(WalOptions.SWEEPER.defaultValue()).isEqualTo(b.sweeper).isTrue();
    assertThat(WalOptions.SWEEP_INTERVAL.defaultValue()).isEqualTo(b.sweepInterval);
    assertThat(WalOptions.STATUS_INTERVAL.defaultValue()).isEqualTo(b.statusInterval);
    assertThat(WalOptions.VISIBILITY_WAIT.defaultValue()).isEqualTo(b.visibilityWait);
    // Defaults that depend on the tables are said in words.
    assertThat(WalOptions.SLOT_NAME.defaultValue()).isNull();
    assertThat(WalOptions.SLOT_NAME.defaultText()).isEqualTo("txoutbox_<table prefix><schema>");
    assertThat(WalOptions.PUBLICATION_NAME.defaultText())
        .isEqualTo(WalOptions.SLOT_NAME.defaultText());
    assertThat(WalOptions.REPLICATION_URL.defaultText()).isEqualTo("required");
  }

  @Test
  void theBuilderAndAToolSayTheSameRuleInTheirOwnWords() {
    assertThatThrownBy(() -> WalRelay.builder().concurrentBatches(9))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("concurrentBatches must be between 1 and 8 but was 9");
    assertThatThrownBy(() -> WalOptions.CONCURRENT_BATCHES.check(9, null, FLAGS))
        .hasMessage("--concurrent-batches must be between 1 and 8 but was 9");

    assertThatThrownBy(() -> WalRelay.builder().minBatchInterval(Duration.ofSeconds(2)))
        .hasMessage("minBatchInterval must be at most 1s but was PT2S");
    assertThatThrownBy(
            () -> WalOptions.MIN_BATCH_INTERVAL.check(Duration.ofSeconds(2), null, FLAGS))
        .hasMessage("--min-batch-interval must be at most 1s but was 2s");

    assertThatThrownBy(() -> WalRelay.builder().slotName("Bad-Name"))
        .hasMessage("slotName must be 1 to 63 characters of a-z, 0-9 and _ but was 'Bad-Name'");
    assertThatThrownBy(() -> WalOptions.PUBLICATION_NAME.check("x;drop", null, FLAGS))
        .hasMessage("--publication must be 1 to 63 characters of a-z, 0-9 and _ but was 'x;drop'");

    assertThatThrownBy(() -> WalRelay.builder().reconnectDelay(Duration.ZERO))
        .hasMessage("reconnectDelay must be positive but was PT0S");
    assertThatThrownBy(() -> WalRelay.builder().statusInterval(Duration.ofSeconds(-1)))
        .hasMessage("statusInterval must be positive but was PT-1S");
    assertThatThrownBy(() -> WalRelay.builder().visibilityWait(Duration.ZERO))
        .hasMessage("visibilityWait must be positive but was PT0S");
    assertThatThrownBy(() -> WalRelay.builder().sweepInterval(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("sweepInterval");

    assertThat(WalOptions.CREATE_IF_MISSING.flag()).isEqualTo("--no-create-slot");
    assertThat(WalOptions.RECONNECT_DELAY.flag()).isNull();
  }

  @Test
  void aBadReplicationUrlIsRefusedWithItsPasswordMasked() {
    String url = "postgresql://relay:S3cretPw@db:5432/app?password=S3cretPw";
    assertThatThrownBy(() -> WalRelay.builder().replicationUrl(url, new Properties()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "replicationUrl must be a JDBC URL starting with jdbc:postgresql: but was"
                + " 'postgresql://relay:")
        .hasMessageNotContaining("S3cretPw");
  }
}
