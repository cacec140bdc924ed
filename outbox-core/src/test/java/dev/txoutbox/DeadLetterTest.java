package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class DeadLetterTest {

  private static final UUID ID = UUID.fromString("00000000-0000-0000-0000-000000000001");
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant DEAD = Instant.parse("2026-01-01T00:05:00Z");

  private static DeadLetter letter(Map<String, String> headers) {
    return new DeadLetter(
        ID, "order", "o-1", "order.paid", "{}", headers, 3, CREATED, DEAD, "no route");
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
  void rejectsEachMissingComponentNamingIt() {
    Map<String, UnaryOperator<Object[]>> nulled =
        Map.of(
            "id", a -> set(a, 0),
            "aggregateType", a -> set(a, 1),
            "aggregateId", a -> set(a, 2),
            "eventType", a -> set(a, 3),
            "headers", a -> set(a, 5),
            "createdAt", a -> set(a, 7),
            "deadLetteredAt", a -> set(a, 8));
    nulled.forEach(
        (component, nulling) -> {
          Object[] a = nulling.apply(components());
          assertThatThrownBy(() -> create(a))
              .as(component)
              .isInstanceOf(NullPointerException.class)
              .hasMessage(component);
        });
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
    assertThatThrownBy(
            () ->
                new DeadLetter(
                    ID, "order", "o-1", "order.paid", "{}", Map.of(), -1, CREATED, DEAD, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("attempts must not be negative but was -1");
  }

  @Test
  void rawHeadersComeOnlyWithEmptyHeadersAndAPayloadMayBeMissing() {
    DeadLetter unreadable =
        new DeadLetter(
            ID, "order", "o-1", "order.paid", null, Map.of(), "[]", 0, CREATED, DEAD, "unreadable");
    assertThat(unreadable.rawHeaders()).isEqualTo("[]");
    assertThat(unreadable.payload()).isNull();
    assertThat(letter(Map.of()).rawHeaders()).isNull();
    assertThatThrownBy(
            () ->
                new DeadLetter(
                    ID,
                    "order",
                    "o-1",
                    "order.paid",
                    "{}",
                    Map.of("tenant", "t-1"),
                    "[]",
                    0,
                    CREATED,
                    DEAD,
                    null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("headers must be empty when rawHeaders is given but held 1");
  }

  @Test
  void aLastErrorMayBeMissing() {
    DeadLetter byHand =
        new DeadLetter(ID, "order", "o-1", "order.paid", "{}", Map.of(), 0, CREATED, DEAD, null);
    assertThat(byHand.lastError()).isNull();
  }

  private static Object[] components() {
    return new Object[] {
      ID, "order", "o-1", "order.paid", "{}", Map.of(), 3, CREATED, DEAD, "no route"
    };
  }

  private static Object[] set(Object[] a, int index) {
    a[index] = null;
    return a;
  }

  @SuppressWarnings("unchecked")
  private static DeadLetter create(Object[] a) {
    return new DeadLetter(
        (UUID) a[0],
        (String) a[1],
        (String) a[2],
        (String) a[3],
        (String) a[4],
        (Map<String, String>) a[5],
        (Integer) a[6],
        (Instant) a[7],
        (Instant) a[8],
        (String) a[9]);
  }
}
