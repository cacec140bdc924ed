package dev.txoutbox.rabbit;

import static dev.txoutbox.rabbit.Messages.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The {@code rabbit} provider as the standalone relay and the benchmarks use it. */
class RabbitPublisherProviderTest {

  private static final String CLIENT_NAME = "txoutbox-test-provider-" + UUID.randomUUID();

  private final RabbitPublisherProvider provider = new RabbitPublisherProvider();

  private Publisher create(Map<String, String> values) {
    return provider.create(PublisherSettings.of(provider, CLIENT_NAME, values));
  }

  private static Map<String, String> with(String... keysAndValues) {
    Map<String, String> values = new HashMap<>();
    values.put("amqp-uri", RabbitTestBroker.URI);
    values.put("exchange", "outbox");
    for (int i = 0; i < keysAndValues.length; i += 2) {
      values.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return values;
  }

  @Test
  void serviceLoaderFindsTheProvider() {
    List<PublisherProvider> found =
        ServiceLoader.load(PublisherProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals("rabbit"))
            .toList();

    assertThat(found).singleElement().isInstanceOf(RabbitPublisherProvider.class);
  }

  @Test
  void aMissingUriNamesItsFlag() {
    assertThatThrownBy(() -> create(Map.of("exchange", "outbox")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--amqp-uri (or amqp-uri in a settings file) must be given for publisher rabbit"
                + " but was not");
  }

  @Test
  void aMissingExchangeNamesItsFlagButTheDefaultExchangeIsAValue() {
    assertThatThrownBy(() -> create(Map.of("amqp-uri", RabbitTestBroker.URI)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--exchange (or exchange in a settings file) must be given");

    try (Publisher publisher = create(with("exchange", ""))) {
      assertThat(publisher.describe()).contains("exchange='', routingKey=eventType");
    }
  }

  @Test
  void anUnknownSettingIsRefused() {
    // confirm-timeout was this setting's name before send-timeout
    assertThatThrownBy(
            () -> PublisherSettings.of(provider, CLIENT_NAME, with("confirm-timeout", "5s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a setting of publisher rabbit must be one of amqp-uri, exchange, declare-exchange,"
                + " send-timeout, unroutable-is-permanent but was 'confirm-timeout'");
  }

  @Test
  void theBuildersErrorsNameTheFlags() {
    assertThatThrownBy(() -> create(with("send-timeout", "0ms")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--send-timeout must be positive but was 0ms");
    assertThatThrownBy(() -> create(with("amqp-uri", "http://app:s3cret-pw@rabbit.example")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--amqp-uri must be an AMQP URI such as amqp://user:****@host:5672/vhost"
                + " but was 'http://app:****@rabbit.example' (the scheme must be amqp or amqps)");
    assertThatThrownBy(() -> create(with("exchange", "é".repeat(200))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--exchange must be at most 255 UTF-8 bytes but was 400");
    assertThatThrownBy(() -> create(with("declare-exchange", "round-robin")))
        .isInstanceOf(IllegalArgumentException.class)
        // then the client's plugin types, such as x-consistent-hash
        .hasMessageStartingWith("--declare-exchange must be one of direct, fanout, topic, headers")
        .hasMessageEndingWith(" but was 'round-robin'");
  }

  @Test
  void readsEverySetting() {
    try (Publisher publisher =
        create(
            with(
                "declare-exchange",
                "Topic",
                "send-timeout",
                "1.5s",
                "unroutable-is-permanent",
                "true"))) {
      assertThat(publisher.describe())
          .contains("connectionName=" + CLIENT_NAME)
          .contains("exchange='outbox'")
          .contains("declare=topic 'outbox' durable")
          .contains("sendTimeout=1.5s")
          .contains("unroutableIsPermanent=true");
    }
  }

  @Test
  void aCreatedPublisherDeliversToTheBroker() throws Exception {
    try (TestTopology topology = TestTopology.create("provider", "order.*");
        Publisher publisher = create(with("exchange", topology.exchange()))) {
      OutboxMessage sent = event("order.created");

      List<PublishResult> results = publisher.publish(List.of(sent));

      assertThat(results).singleElement().satisfies(r -> assertThat(r.isPublished()).isTrue());
      assertThat(topology.takeIds(1, Duration.ofSeconds(30))).containsExactly(sent.id().toString());
      assertThat(RabbitTestBroker.connectionPid(CLIENT_NAME)).isPresent();
    }
  }
}
