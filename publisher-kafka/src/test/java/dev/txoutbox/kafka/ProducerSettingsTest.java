package dev.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.SecretMasking;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProducerSettingsTest {

  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

  @Test
  void defaultsToAnIdempotentProducerWaitingForAllReplicasWithOneRequestInFlight() {
    Map<String, Object> config = ProducerSettings.effective(Map.of(), "k:9092", SEND_TIMEOUT);

    assertThat(config)
        .containsEntry("bootstrap.servers", "k:9092")
        .containsEntry("enable.idempotence", true)
        .containsEntry("acks", "all")
        .containsEntry("max.in.flight.requests.per.connection", 1)
        .containsEntry("linger.ms", 0)
        .containsEntry("batch.size", 65_536)
        .containsEntry("reconnect.backoff.max.ms", 10_000)
        .containsEntry("max.block.ms", 30_000L)
        .containsEntry("delivery.timeout.ms", 30_000);
  }

  @Test
  void deliveryTimeoutLeavesRoomForLingerAndRequestTimeoutAsKafkaRequires() {
    Map<String, Object> config =
        ProducerSettings.effective(Map.of("linger.ms", "20"), "k:9092", Duration.ofSeconds(5));

    int delivery = (int) config.get("delivery.timeout.ms");
    int request = (int) config.get("request.timeout.ms");
    assertThat(delivery).isEqualTo(5_000);
    assertThat(delivery).isGreaterThanOrEqualTo(20 + request);
  }

  @Test
  void userSettingsWinOverTheDefaults() {
    Map<String, Object> config =
        ProducerSettings.effective(
            Map.of(
                "delivery.timeout.ms",
                120_000,
                "compression.type",
                "zstd",
                "max.block.ms",
                5,
                "max.in.flight.requests.per.connection",
                5),
            "k:9092",
            SEND_TIMEOUT);

    assertThat(config)
        .containsEntry("delivery.timeout.ms", 120_000)
        .containsEntry("max.in.flight.requests.per.connection", 5)
        .containsEntry("compression.type", "zstd")
        .containsEntry("max.block.ms", 5)
        .doesNotContainKey("request.timeout.ms");
  }

  @Test
  void acceptsBootstrapServersFromTheProducerConfig() {
    assertThat(
            ProducerSettings.effective(Map.of("bootstrap.servers", "k:9092"), null, SEND_TIMEOUT))
        .containsEntry("bootstrap.servers", "k:9092");
  }

  @Test
  void requiresBootstrapServers() {
    assertThatThrownBy(() -> ProducerSettings.effective(Map.of(), null, SEND_TIMEOUT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("bootstrapServers");
  }

  @Test
  void refusesContradictingBootstrapServers() {
    assertThatThrownBy(
            () ->
                ProducerSettings.effective(
                    Map.of("bootstrap.servers", "a:9092"), "b:9092", SEND_TIMEOUT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bootstrapServers")
        .hasMessageContaining("bootstrap.servers");
  }

  @Test
  void refusesSettingsThePublisherOwns() {
    for (String owned : new String[] {"transactional.id", "key.serializer", "value.serializer"}) {
      assertThatThrownBy(
              () -> ProducerSettings.effective(Map.of(owned, "x"), "k:9092", SEND_TIMEOUT))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(owned);
    }
  }

  @Test
  void refusesASendTimeoutShorterThanLinger() {
    assertThatThrownBy(
            () ->
                ProducerSettings.effective(
                    Map.of("linger.ms", 1_000), "k:9092", Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sendTimeout")
        .hasMessageContaining("linger.ms");
  }

  @Test
  void namesAnUnparsableSetting() {
    assertThatThrownBy(
            () -> ProducerSettings.effective(Map.of("linger.ms", "soon"), "k:9092", SEND_TIMEOUT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("linger.ms");
  }

  @Test
  void masksCredentialsForLogging() {
    Map<String, String> masked =
        ProducerSettings.masked(
            Map.of(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " username=\"u\" password=\"p\";",
                "ssl.truststore.password",
                "changeit",
                "ssl.keystore.key",
                "-----BEGIN PRIVATE KEY-----",
                "my.vendor.api.key",
                "abc",
                "sasl.oauthbearer.token.endpoint.url",
                "https://idp/token",
                "acks",
                "all"));

    assertThat(masked)
        .containsEntry("sasl.jaas.config", SecretMasking.MASK)
        .containsEntry("ssl.truststore.password", SecretMasking.MASK)
        .containsEntry("ssl.keystore.key", SecretMasking.MASK)
        .containsEntry("my.vendor.api.key", SecretMasking.MASK)
        .containsEntry("acks", "all");
    assertThat(masked.toString()).doesNotContain("password=\"p\"", "changeit", "PRIVATE");
  }
}
