package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DeadLetterSelectorTest {

  private static final UUID A = UUID.fromString("00000000-0000-0000-0000-00000000000a");
  private static final UUID B = UUID.fromString("00000000-0000-0000-0000-00000000000b");

  @Test
  void isSealedToTheThreeKindsTheFactoriesMake() {
    assertThat(DeadLetterSelector.class.isSealed()).isTrue();
    assertThat(DeadLetterSelector.class.getPermittedSubclasses())
        .containsExactlyInAnyOrder(
            DeadLetterSelector.ByIds.class,
            DeadLetterSelector.ByEventType.class,
            DeadLetterSelector.All.class);
    assertThat(DeadLetterSelector.ids(A, B))
        .isEqualTo(new DeadLetterSelector.ByIds(Set.of(A, B)))
        .isEqualTo(DeadLetterSelector.ids(Set.of(B, A)));
    assertThat(DeadLetterSelector.eventType("order.paid"))
        .isEqualTo(new DeadLetterSelector.ByEventType("order.paid"));
    assertThat(DeadLetterSelector.all()).isEqualTo(new DeadLetterSelector.All());
  }

  @Test
  void idsAreCopiedAndADuplicateIsHarmless() {
    Set<UUID> given = new HashSet<>(Set.of(A));
    DeadLetterSelector.ByIds selector = (DeadLetterSelector.ByIds) DeadLetterSelector.ids(given);
    given.add(B);
    assertThat(selector.ids()).containsExactly(A);
    assertThatThrownBy(() -> selector.ids().add(B))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(((DeadLetterSelector.ByIds) DeadLetterSelector.ids(A, A)).ids()).containsExactly(A);
  }

  @Test
  void rejectsAnEmptyOrNullSelectionNamingTheParameter() {
    assertThatThrownBy(() -> DeadLetterSelector.ids())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ids must hold at least one id but was empty");
    assertThatThrownBy(() -> DeadLetterSelector.ids(Set.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DeadLetterSelector.ids(A, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("ids must not contain null");
    assertThatThrownBy(() -> DeadLetterSelector.ids((Set<UUID>) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("ids");
    assertThatThrownBy(() -> DeadLetterSelector.eventType(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("eventType must not be blank but was ' '");
    assertThatThrownBy(() -> DeadLetterSelector.eventType(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("eventType");
  }

  @Test
  void describesItselfForOperators() {
    assertThat(DeadLetterSelector.all()).hasToString("all dead letters");
    assertThat(DeadLetterSelector.eventType("order.paid"))
        .hasToString("dead letters of type order.paid");
    assertThat(DeadLetterSelector.ids(A))
        .hasToString("dead letters " + Arrays.toString(new UUID[] {A}));
  }
}
