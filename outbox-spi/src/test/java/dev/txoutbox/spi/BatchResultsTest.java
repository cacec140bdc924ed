package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A batch cut short: the answers given stand, the rest share one outcome. */
class BatchResultsTest {

  @Test
  void fillsOnlyTheUnsetSlotsAndLeavesTheArrayAlone() {
    PublishResult ok = PublishResult.published();
    PublishResult gone = PublishResult.brokerUnavailable("broker closed", null);
    PublishResult[] results = {ok, null, PublishResult.permanent("too big"), null};

    List<PublishResult> filled = BatchResults.fillUnset(results, gone);

    assertThat(filled).hasSize(4);
    assertThat(filled.get(0)).isSameAs(ok);
    assertThat(filled.get(1)).isSameAs(gone);
    assertThat(filled.get(2).reason()).isEqualTo("too big");
    assertThat(filled.get(3)).isSameAs(gone);
    assertThat(results[1]).isNull();
    assertThat(BatchResults.unset(results)).isEqualTo(2);
    assertThat(BatchResults.unset(filled.toArray(PublishResult[]::new))).isZero();
  }

  @Test
  void theOutcomeMustBeGiven() {
    assertThatThrownBy(() -> BatchResults.fillUnset(new PublishResult[1], null))
        .isInstanceOf(NullPointerException.class);
  }
}
