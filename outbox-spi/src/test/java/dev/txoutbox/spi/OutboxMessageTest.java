package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class OutboxMessageTest {

  private static final UUID ID = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
  private static final Instant CREATED = Instant.parse("2026-11-30T06:50:38.123Z");

  private static OutboxMessage.Builder complete() {
    return OutboxMessage.builder()
        .id(ID)
        .sequence(7)
        .aggregateType("order")
        .aggregateId("o-1")
        .eventType("order.created")
        .payload("{\"total\": 42}")
        .headers(Map.of("tenant", "acme"))
        .createdAt(CREATED)
        .attempt(2);
  }

  @Test
  void aFinalClassWithNoPublicConstructorSoAFieldCanBeAddedWithoutBreakingCallers() {
    assertThat(OutboxMessage.class.isRecord()).isFalse();
    assertThat(Modifier.isFinal(OutboxMessage.class.getModifiers())).isTrue();
    assertThat(OutboxMessage.class.getConstructors()).isEmpty();
  }

  @Test
  void readsBackEveryFieldItWasBuiltWith() {
    OutboxMessage m = complete().build();

    assertThat(m.id()).isEqualTo(ID);
    assertThat(m.sequence()).isEqualTo(7);
    assertThat(m.aggregateType()).isEqualTo("order");
    assertThat(m.aggregateId()).isEqualTo("o-1");
    assertThat(m.eventType()).isEqualTo("order.created");
    assertThat(m.payload()).isEqualTo("{\"total\": 42}");
    assertThat(m.payloadBytes()).isEqualTo("{\"total\": 42}".getBytes(StandardCharsets.UTF_8));
    assertThat(m.headers()).containsExactly(Map.entry("tenant", "acme"));
    assertThat(m.createdAt()).isEqualTo(CREATED);
    assertThat(m.attempt()).isEqualTo(2);
  }

  @Test
  void headersDefaultToNoneAndAreCopiedSoTheCallerCannotChangeThemAfterwards() {
    Map<String, String> headers = new HashMap<>(Map.of("tenant", "t-1"));
    OutboxMessage.Builder builder = complete().headers(headers);
    headers.put("tenant", "t-2");
    OutboxMessage m = builder.build();
    headers.put("extra", "x");

    assertThat(m.headers()).containsExactly(Map.entry("tenant", "t-1"));
    assertThatThrownBy(() -> m.headers().put("extra", "x"))
        .isInstanceOf(UnsupportedOperationException.class);
    OutboxMessage.Builder noHeaders =
        OutboxMessage.builder()
            .id(ID)
            .sequence(1)
            .aggregateType("order")
            .aggregateId("o-1")
            .eventType("order.created")
            .payload("{}")
            .createdAt(CREATED)
            .attempt(1);
    assertThat(noHeaders.build().headers()).isEmpty();
  }

  @Test
  void buildingWithoutAFieldFailsNamingIt() {
    Map<String, UnaryOperator<OutboxMessage.Builder>> setters = new LinkedHashMap<>();
    setters.put("id", b -> b.id(ID));
    setters.put("sequence", b -> b.sequence(1));
    setters.put("aggregateType", b -> b.aggregateType("order"));
    setters.put("aggregateId", b -> b.aggregateId("o-1"));
    setters.put("eventType", b -> b.eventType("order.created"));
    setters.put("payload", b -> b.payload("{}"));
    setters.put("createdAt", b -> b.createdAt(CREATED));
    setters.put("attempt", b -> b.attempt(1));
    for (String missing : setters.keySet()) {
      OutboxMessage.Builder b = OutboxMessage.builder();
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
  void aNullFieldIsRejectedAtOnceNamingIt() {
    OutboxMessage.Builder b = OutboxMessage.builder();
    Map<String, Runnable> nulled =
        Map.of(
            "id", () -> b.id(null),
            "aggregateType", () -> b.aggregateType(null),
            "aggregateId", () -> b.aggregateId(null),
            "eventType", () -> b.eventType(null),
            "payload", () -> b.payload(null),
            "headers", () -> b.headers(null),
            "createdAt", () -> b.createdAt(null));
    nulled.forEach(
        (field, call) ->
            assertThatThrownBy(call::run)
                .as(field)
                .isInstanceOf(NullPointerException.class)
                .hasMessage(field));
    Map<String, String> nullValue = new HashMap<>();
    nullValue.put("tenant", null);
    assertThatThrownBy(() -> b.headers(nullValue)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void toBuilderCopiesEveryFieldSoOneCanBeChanged() {
    OutboxMessage m = complete().build();

    assertThat(m.toBuilder().build()).isEqualTo(m).hasSameHashCodeAs(m);
    OutboxMessage retried = m.toBuilder().attempt(3).build();
    assertThat(retried.attempt()).isEqualTo(3);
    assertThat(retried).isNotEqualTo(m);
    assertThat(retried.toBuilder().attempt(2).build()).isEqualTo(m);
    assertThat(m.attempt()).isEqualTo(2);
  }

  @Test
  void equalWhenEveryFieldIsEqual() {
    OutboxMessage m = complete().build();
    Map<String, UnaryOperator<OutboxMessage.Builder>> changes =
        Map.of(
            "id", b -> b.id(UUID.randomUUID()),
            "sequence", b -> b.sequence(8),
            "aggregateType", b -> b.aggregateType("customer"),
            "aggregateId", b -> b.aggregateId("o-2"),
            "eventType", b -> b.eventType("order.paid"),
            "payload", b -> b.payload("{}"),
            "headers", b -> b.headers(Map.of()),
            "createdAt", b -> b.createdAt(CREATED.plusMillis(1)),
            "attempt", b -> b.attempt(1));

    assertThat(complete().build()).isEqualTo(m).hasSameHashCodeAs(m);
    changes.forEach(
        (field, change) -> assertThat(change.apply(complete()).build()).as(field).isNotEqualTo(m));
    assertThat(m).isNotEqualTo(null).isNotEqualTo("OutboxMessage");
  }

  @Test
  void toStringShowsEveryFieldAsTheRecordDid() {
    assertThat(complete().build())
        .hasToString(
            "OutboxMessage[id=0f8fad5b-d9cb-469f-a165-70867728950e, sequence=7,"
                + " aggregateType=order, aggregateId=o-1, eventType=order.created,"
                + " payload={\"total\": 42}, headers={tenant=acme},"
                + " createdAt=2026-11-30T06:50:38.123Z, attempt=2]");
  }
}
