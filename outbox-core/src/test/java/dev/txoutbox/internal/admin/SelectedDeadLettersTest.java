package dev.txoutbox.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.DeadLetterSelector;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * Java 17 cannot switch over the kinds of a sealed interface, so the admin's instanceof chain is
 * checked here instead: every permitted kind of {@link DeadLetterSelector} has its condition.
 */
class SelectedDeadLettersTest {

  private static final UUID ID = UUID.fromString("00000000-0000-0000-0000-0000000000aa");

  private static final Map<Class<?>, DeadLetterSelector> ONE_OF_EACH_KIND =
      Map.of(
          DeadLetterSelector.ByIds.class, DeadLetterSelector.ids(ID),
          DeadLetterSelector.ByEventType.class, DeadLetterSelector.eventType("order.paid"),
          DeadLetterSelector.All.class, DeadLetterSelector.all());

  private final DSLContext dsl = DSL.using(SQLDialect.POSTGRES);

  private String sql(DeadLetterSelector selector) {
    return dsl.renderContext()
        .paramType(ParamType.INLINED)
        .visit(DefaultOutboxAdmin.selected(selector))
        .render();
  }

  @Test
  void everyKindOfSelectorHasItsCondition() {
    assertThat(ONE_OF_EACH_KIND.keySet())
        .as("a sample of every permitted kind")
        .containsExactlyInAnyOrder(DeadLetterSelector.class.getPermittedSubclasses());
    ONE_OF_EACH_KIND
        .values()
        .forEach(
            s -> assertThat(sql(s)).as(s.toString()).contains("\"dead_lettered_at\" is not null"));
  }

  @Test
  void eachConditionSelectsDeadLettersOfItsKindOnly() {
    assertThat(sql(DeadLetterSelector.all())).doesNotContain(" and ");
    assertThat(sql(DeadLetterSelector.eventType("order.paid")))
        .contains("event_type\" = 'order.paid'");
    assertThat(sql(DeadLetterSelector.ids(ID))).contains("id\" in (").contains(ID.toString());
  }
}
