package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.TestMessages;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  private static final Instant CREATED = Instant.parse("2026-12-06T10:00:00Z");

  private static final RetryPolicy PAYMENTS =
      RetryPolicy.of(200, Backoff.exponential(Duration.ofSeconds(5), Duration.ofMinutes(30)))
          .withMaxAge(Duration.ofDays(1));
  private static final RetryPolicy CACHE =
      RetryPolicy.of(3, Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(1)))
          .withMaxAge(Duration.ofMinutes(1));
  private static final RetryPolicy ORDERS =
      RetryPolicy.of(20, Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(5)));

  private static OutboxMessage message(String aggregateType, String eventType, int attempt) {
    return TestMessages.message()
        .aggregateType(aggregateType)
        .aggregateId("a-1")
        .eventType(eventType)
        .createdAt(CREATED)
        .attempt(attempt)
        .build();
  }

  @Test
  void anEventTypesPolicyWinsOverItsAggregateTypesWhichWinsOverTheDefault() {
    RelayConfig config =
        RelayConfig.builder()
            .maxAttempts(7)
            .retryPolicy("payment.captured", PAYMENTS)
            .retryPolicy("cache.invalidated", CACHE)
            .aggregateRetryPolicy("order", ORDERS)
            .build();

    assertThat(config.retryPolicy(message("order", "payment.captured", 1))).isEqualTo(PAYMENTS);
    assertThat(config.retryPolicy(message("product", "cache.invalidated", 1))).isEqualTo(CACHE);
    assertThat(config.retryPolicy(message("order", "order.placed", 1))).isEqualTo(ORDERS);
    assertThat(config.retryPolicy(message("customer", "customer.moved", 1)))
        .isEqualTo(RetryPolicy.of(7, Backoff.defaults()))
        .isSameAs(config.defaultRetryPolicy());
    // Exact names only: no prefix or case folding.
    assertThat(config.retryPolicy(message("Order", "payment.captured.v2", 1)))
        .isSameAs(config.defaultRetryPolicy());
  }

  @Test
  void aPolicyIsExhaustedByItsAttemptsOrByItsAge() {
    assertThat(CACHE.exhausted(2, CREATED, CREATED.plusSeconds(10))).isFalse();
    assertThat(CACHE.exhausted(3, CREATED, CREATED.plusSeconds(10))).isTrue();
    assertThat(CACHE.exhausted(1, CREATED, CREATED.plusSeconds(59))).isFalse();
    assertThat(CACHE.exhausted(1, CREATED, CREATED.plusSeconds(60))).isTrue();
    assertThat(ORDERS.exhausted(19, CREATED, CREATED.plus(Duration.ofDays(3650)))).isFalse();
  }

  @Test
  void theDefaultPolicyCarriesTheRelaysMaxAttemptsBackoffAndAge() {
    Backoff backoff = Backoff.exponential(Duration.ofSeconds(2), Duration.ofMinutes(1));
    RelayConfig config =
        RelayConfig.builder().maxAttempts(4).backoff(backoff).maxAge(Duration.ofHours(2)).build();

    assertThat(config.defaultRetryPolicy())
        .isEqualTo(RetryPolicy.of(4, backoff).withMaxAge(Duration.ofHours(2)));
    assertThat(config.maxAge()).isEqualTo(Duration.ofHours(2));
    assertThat(RelayConfig.defaults().maxAge()).isNull();
  }

  @Test
  void policiesTakePartInEqualityToBuilderAndToString() {
    RelayConfig config =
        RelayConfig.builder()
            .retryPolicy("cache.invalidated", CACHE)
            .aggregateRetryPolicy("order", ORDERS)
            .build();

    assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);
    assertThat(config).isNotEqualTo(RelayConfig.defaults());
    assertThat(config.toBuilder().retryPolicy("cache.invalidated", ORDERS).build())
        .isNotEqualTo(config);
    assertThat(config.eventTypeRetryPolicies())
        .containsExactly(Map.entry("cache.invalidated", CACHE));
    assertThat(config.aggregateTypeRetryPolicies()).containsExactly(Map.entry("order", ORDERS));
    assertThat(config.toString())
        .contains("eventTypeRetryPolicies {cache.invalidated=maxAttempts=3, backoff 100ms to 1s")
        .contains("maxAge 1m")
        .contains("aggregateTypeRetryPolicies {order=maxAttempts=20");
    assertThatThrownBy(() -> config.eventTypeRetryPolicies().put("x", CACHE))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void badValuesAreRefusedNamingTheFieldAndTheLimit() {
    Backoff backoff = Backoff.defaults();
    assertThatThrownBy(() -> RetryPolicy.of(0, backoff))
        .hasMessage("maxAttempts must be between 1 and 1000 but was 0");
    assertThatThrownBy(() -> RetryPolicy.of(1001, backoff))
        .hasMessage("maxAttempts must be between 1 and 1000 but was 1001");
    assertThatThrownBy(() -> RetryPolicy.of(3, backoff).withMaxAge(Duration.ZERO))
        .hasMessage("maxAge must be positive but was PT0S");
    assertThatThrownBy(() -> RelayConfig.builder().maxAge(Duration.ofSeconds(-1)))
        .hasMessage("maxAge must be positive but was PT-1S");
    assertThatThrownBy(() -> RelayConfig.builder().retryPolicy(" ", CACHE))
        .hasMessageStartingWith("retry policy eventType must be 1 to 255 characters, not blank");
    String tooLong = "t".repeat(256);
    assertThatThrownBy(() -> RelayConfig.builder().aggregateRetryPolicy(tooLong, CACHE))
        .hasMessageStartingWith("retry policy aggregateType must be 1 to 255 characters")
        .hasMessageEndingWith("(256 characters)");
    assertThatThrownBy(() -> RelayConfig.builder().retryPolicy("x", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("policy");
  }
}
