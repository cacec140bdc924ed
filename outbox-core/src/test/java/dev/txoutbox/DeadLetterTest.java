package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class DeadLetterTest {

  private static final UUID ID = UUID.fromString("00000000-0000-0000-0000-000000000001");
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant DEAD = Instant.parse("2026-01-01T00:05:00Z");

  private static DeadLetter.Builder complete() {
    return DeadLetter.builder()
        .id(ID)
        .aggregateType("order")
        .aggregateId("o-1")
        .eventType("order.paid")
        .payload("{}")
        .attempts(3)
        .createdAt(CREATED)
        .deadLetteredAt(DEAD)
        .lastError("no route");
  }

  private static DeadLetter letter(Map<String, String> headers) {
    return complete().headers(headers).build();
  }

  @Test
  void aFinalClassWithNoPublicConstructorSoAFieldCanBeAddedWithoutBreakingCallers() {
    assertThat(DeadLetter.class.isRecord()).isFalse();
    assertThat(Modifier.isFinal(DeadLetter.class.getModifiers())).isTrue();
    assertThat(DeadLetter.class.getConstructors()).isEmpty();
  }

  @Test
  void readsBackEveryFieldItWasBuiltWith() {
    DeadLetter d = letter(Map.of("tenant", "t-1"));

    assertThat(d.id()).isEqualTo(ID);
    assertThat(d.aggregateType()).isEqualTo("order");
    assertThat(d.aggregateId()).isEqualTo("o-1");
    assertThat(d.eventType()).isEqualTo("order.paid");
    assertThat(d.payload()).isEqualTo("{}");
    assertThat(d.headers()).containsExactly(Map.entry("tenant", "t-1"));
    assertThat(d.rawHeaders()).isNull();
    assertThat(d.attempts()).isEqualTo(3);
    assertThat(d.createdAt()).isEqualTo(CREATED);
    assertThat(d.deadLetteredAt()).isEqualTo(DEAD);
    assertThat(d.lastError()).isEqualTo("no route");
  }

  @Test
  void copiesTheHeadersSoTheCallerCannotChangeThemAfterwards() {
    Map<String, String> headers = new HashMap<>(Map.of("tenant", "t-1"));
    DeadLetter letter = letter(headers);
    headers.put("tenant", "t-2");
    headers.put("extra", "x");

    assertThat(letter.headers()).containsExactly(Map.entry("tenant", "t-1"));
    assertThatThrownBy(() -> letter.headers().put("extra", "x"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void buildingWithoutARequiredFieldFailsNamingIt() {
    Map<String, UnaryOperator<DeadLetter.Builder>> setters = new LinkedHashMap<>();
    setters.put("id", b -> b.id(ID));
    setters.put("aggregateType", b -> b.aggregateType("order"));
    setters.put("aggregateId", b -> b.aggregateId("o-1"));
    setters.put("eventType", b -> b.eventType("order.paid"));
    setters.put("attempts", b -> b.attempts(3));
    setters.put("createdAt", b -> b.createdAt(CREATED));
    setters.put("deadLetteredAt", b -> b.deadLetteredAt(DEAD));
    for (String missing : setters.keySet()) {
      DeadLetter.Builder b = DeadLetter.builder();
      setters.forEach(
          (field, set) -> {
            if (!field.equals(missing)) {
              set.apply(b);
            }
          });
      assertThatThrownBy(b::build)
          .as(missing)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(missing + " must be set but was not");
    }
  }

  @Test
  void rejectsEachMissingComponentNamingIt() {
    DeadLetter.Builder b = DeadLetter.builder();
    Map<String, Runnable> nulled =
        Map.of(
            "id", () -> b.id(null),
            "aggregateType", () -> b.aggregateType(null),
            "aggregateId", () -> b.aggregateId(null),
            "eventType", () -> b.eventType(null),
            "headers", () -> b.headers(null),
            "createdAt", () -> b.createdAt(null),
            "deadLetteredAt", () -> b.deadLetteredAt(null));
    nulled.forEach(
        (component, call) ->
            assertThatThrownBy(call::run)
                .as(component)
                .isInstanceOf(NullPointerException.class)
                .hasMessage(component));
  }

  @Test
  void rejectsNullHeaderNamesAndValuesAndNegativeAttempts() {
    Map<String, String> nullValue = new HashMap<>();
    nullValue.put("tenant", null);
    assertThatThrownBy(() -> letter(nullValue))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("headers['tenant'] must not be null");
    Map<String, String> nullName = new HashMap<>();
    nullName.put(null, "x");
    assertThatThrownBy(() -> letter(nullName))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("headers must not hold a null name");
    assertThatThrownBy(() -> complete().attempts(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("attempts must not be negative but was -1");
  }

  @Test
  void rawHeadersComeOnlyWithEmptyHeadersAndAPayloadMayBeMissing() {
    DeadLetter unreadable =
        complete().payload(null).rawHeaders("[]").attempts(0).lastError("unreadable").build();
    assertThat(unreadable.rawHeaders()).isEqualTo("[]");
    assertThat(unreadable.payload()).isNull();
    assertThat(letter(Map.of()).rawHeaders()).isNull();
    assertThatThrownBy(
            () ->
                complete()
                    .headers(Map.of("tenant", "t-1"))
                    .rawHeaders("[]")
                    .lastError(null)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("headers must be empty when rawHeaders is given but held 1");
  }

  @Test
  void aLastErrorMayBeMissing() {
    DeadLetter byHand = complete().attempts(0).lastError(null).build();
    assertThat(byHand.lastError()).isNull();
  }

  @Test
  void equalWhenEveryFieldIsEqual() {
    DeadLetter d = complete().build();
    Map<String, UnaryOperator<DeadLetter.Builder>> changes = new LinkedHashMap<>();
    changes.put("id", b -> b.id(UUID.randomUUID()));
    changes.put("aggregateType", b -> b.aggregateType("customer"));
    changes.put("aggregateId", b -> b.aggregateId("o-2"));
    changes.put("eventType", b -> b.eventType("order.created"));
    changes.put("payload", b -> b.payload(null));
    changes.put("headers", b -> b.headers(Map.of("tenant", "t-1")));
    changes.put("rawHeaders", b -> b.rawHeaders("[]"));
    changes.put("attempts", b -> b.attempts(4));
    changes.put("createdAt", b -> b.createdAt(CREATED.plusMillis(1)));
    changes.put("deadLetteredAt", b -> b.deadLetteredAt(DEAD.plusMillis(1)));
    changes.put("lastError", b -> b.lastError(null));

    assertThat(complete().build()).isEqualTo(d).hasSameHashCodeAs(d);
    changes.forEach(
        (field, change) -> assertThat(change.apply(complete()).build()).as(field).isNotEqualTo(d));
    assertThat(d).isNotEqualTo(null).isNotEqualTo("DeadLetter");
  }

  @Test
  void toStringShowsEveryFieldAsTheRecordDid() {
    assertThat(letter(Map.of("tenant", "t-1")))
        .hasToString(
            "DeadLetter[id=00000000-0000-0000-0000-000000000001, aggregateType=order,"
                + " aggregateId=o-1, eventType=order.paid, payload={}, headers={tenant=t-1},"
                + " rawHeaders=null, attempts=3, createdAt=2026-01-01T00:00:00Z,"
                + " deadLetteredAt=2026-01-01T00:05:00Z, lastError=no route]");
  }
}
