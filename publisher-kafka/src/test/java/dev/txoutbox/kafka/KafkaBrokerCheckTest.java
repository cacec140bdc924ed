package dev.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.BrokerCheck.Status;
import dev.txoutbox.testing.kafka.SharedKafka;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link KafkaPublisher#checkBroker}, against a real KRaft broker. */
class KafkaBrokerCheckTest {

  @Test
  void aClusterThatAnswersIsReachable() throws Exception {
    String servers = SharedKafka.broker().bootstrapServers();
    try (KafkaPublisher publisher = KafkaPublisher.builder().bootstrapServers(servers).build()) {
      BrokerCheck check = publisher.checkBroker(Duration.ofSeconds(10));

      assertThat(check.status()).isEqualTo(Status.REACHABLE);
      assertThat(check.detail()).startsWith("Kafka at " + servers + " answered: cluster ");
      assertThat(check.detail()).endsWith(", 1 broker(s)");
    }
  }

  @Test
  void aPortNobodyListensOnIsUnreachableWithinTheTimeout() throws Exception {
    String servers;
    try (ServerSocket socket = new ServerSocket(0)) {
      servers = "127.0.0.1:" + socket.getLocalPort();
    }
    try (KafkaPublisher publisher =
        KafkaPublisher.builder()
            .bootstrapServers(servers)
            .producerProperty("sasl.jaas.config", "password=\"S3CRET\"")
            .build()) {
      BrokerCheck check = publisher.checkBroker(Duration.ofSeconds(2));

      assertThat(check.status()).isEqualTo(Status.UNREACHABLE);
      assertThat(check.detail())
          .startsWith("Kafka at " + servers + " did not ")
          .contains("2s")
          .doesNotContain("S3CRET");
    }
  }
}
