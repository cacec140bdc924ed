package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import org.junit.jupiter.api.Test;

class EnumFlagTest {

  @Test
  void readsEachConstantsWordOrNameInAnyCaseWithDashesOrUnderscores() {
    for (String ordering :
        new String[] {"per-aggregate", "PER_AGGREGATE", "Per_Aggregate", " per-aggregate "}) {
      assertThat(RelayFlags.ORDERING.parse(ordering))
          .as(ordering)
          .isEqualTo(Ordering.PER_AGGREGATE);
    }
    assertThat(RelayFlags.ORDERING.parse("per_aggregate_skip_dead_letters"))
        .isEqualTo(Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS);
    for (String completion : new String[] {"mark", "MARK", "mark-processed", "mark_processed"}) {
      assertThat(RelayFlags.COMPLETION.parse(completion))
          .as(completion)
          .isEqualTo(CompletionMode.MARK_PROCESSED);
    }
  }

  @Test
  void writesEachConstantAsItsWord() {
    assertThat(RelayFlags.ORDERING.word(Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS))
        .isEqualTo("per-aggregate-skip-dead-letters");
    assertThat(RelayFlags.COMPLETION.word(CompletionMode.MARK_PROCESSED)).isEqualTo("mark");
    for (Ordering o : Ordering.values()) {
      assertThat(RelayFlags.ORDERING.parse(RelayFlags.ORDERING.word(o))).isEqualTo(o);
    }
    for (CompletionMode m : CompletionMode.values()) {
      assertThat(RelayFlags.COMPLETION.parse(RelayFlags.COMPLETION.word(m))).isEqualTo(m);
    }
  }

  @Test
  void refusesAnythingElseListingTheAcceptedWords() {
    assertThatThrownBy(() -> RelayFlags.ORDERING.parse("by-luck"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--ordering must be one of none, per-aggregate, per-aggregate-skip-dead-letters but"
                + " was 'by-luck'");
    assertThatThrownBy(() -> RelayFlags.COMPLETION.parse("sometimes"))
        .hasMessage("--completion must be one of mark, delete but was 'sometimes'");
  }
}
