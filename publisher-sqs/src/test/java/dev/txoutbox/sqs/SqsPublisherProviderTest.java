package dev.txoutbox.sqs;

import static dev.txoutbox.sqs.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSettings;
import dev.txoutbox.testing.sqs.ElasticMq;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/** The {@code sqs} provider as the standalone relay and the benchmarks find and use it. */
class SqsPublisherProviderTest {

  private static final String ACCESS_KEY_PROPERTY = "aws.accessKeyId";
  private static final String SECRET_KEY_PROPERTY = "aws.secretAccessKey";

  private static ElasticMq sqs;

  private final SqsPublisherProvider provider = new SqsPublisherProvider();

  @BeforeAll
  static void startElasticMq() {
    sqs = ElasticMq.start();
  }

  @AfterAll
  static void stopElasticMq() {
    sqs.close();
  }

  private PublisherSettings settings(Map<String, String> values) {
    return PublisherSettings.of(provider, "txoutbox-relay-test", values);
  }

  /** Settings that reach the test's ElasticMQ, plus {@code more}. */
  private PublisherSettings toElasticMq(Map<String, String> more) {
    Map<String, String> values = new HashMap<>(more);
    values.put("sqs-region", "us-east-1");
    values.put("sqs-endpoint", sqs.endpoint().toString());
    return settings(values);
  }

  @Test
  void serviceLoaderFindsTheProviderNamedSqs() {
    List<PublisherProvider> found =
        ServiceLoader.load(PublisherProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals("sqs"))
            .toList();

    assertThat(found).singleElement().isInstanceOf(SqsPublisherProvider.class);
  }

  @Test
  void declaresTheSendTimeoutWithTheBuildersDefault() {
    assertThat(provider.settings())
        .filteredOn(s -> s.name().equals("send-timeout"))
        .singleElement()
        .satisfies(s -> assertThat(s.defaultValue()).isEqualTo("10s"));
  }

  @Test
  void refusesToCreateAPublisherWithoutAQueue() {
    assertThatThrownBy(() -> provider.create(settings(Map.of("sqs-region", "us-east-1"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--queue ")
        .hasMessageEndingWith("must be given at least once for publisher sqs but was not");
  }

  @Test
  void refusesASettingItDoesNotDeclare() {
    assertThatThrownBy(() -> settings(Map.of("queue.order", "orders", "bootstrap-servers", "k:1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("publisher sqs")
        .hasMessageContaining("'bootstrap-servers'");
  }

  @Test
  void namesBuilderErrorsAsFlags() {
    assertThatThrownBy(
            () -> provider.create(toElasticMq(Map.of("queue.order", "q", "send-timeout", "0ms"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--send-timeout must be positive but was 0ms");
    assertThatThrownBy(() -> provider.create(toElasticMq(Map.of("queue.order", " "))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--queue of aggregate type 'order' must not be blank but was ' '");
    assertThatThrownBy(
            () -> provider.create(settings(Map.of("queue.order", "q", "sqs-endpoint", "nowhere"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--sqs-endpoint must be a URL such as http://127.0.0.1:9324 but was 'nowhere'");
  }

  @Test
  void aPublisherItCreatesPublishesToSqs() throws Exception {
    String queue = sqs.createQueue("provided", false);
    OutboxMessage sent = message("order", "o-1", "{\"total\":42}");
    // The provider's client takes its credentials from the SDK's default chain; ElasticMQ accepts
    // any.
    System.setProperty(ACCESS_KEY_PROPERTY, "test");
    System.setProperty(SECRET_KEY_PROPERTY, "test");
    List<PublishResult> results;
    try (Publisher publisher =
        provider.create(toElasticMq(Map.of("queue.order", queue, "send-timeout", "5s")))) {
      assertThat(publisher.describe())
          .contains("routes={order=" + queue + "}", "sendTimeout=5s", "closeClient=true");
      results = publisher.publish(List.of(sent));
    } finally {
      System.clearProperty(ACCESS_KEY_PROPERTY);
      System.clearProperty(SECRET_KEY_PROPERTY);
    }

    assertThat(results).singleElement().satisfies(r -> assertThat(r.isPublished()).isTrue());
    List<Message> received = sqs.receive(queue, 1, Duration.ofSeconds(20));
    assertThat(received)
        .singleElement()
        .satisfies(m -> assertThat(m.body()).isEqualTo("{\"total\":42}"));
    assertThat(SqsHeaders.read(received.get(0).messageAttributes()))
        .containsEntry(OutboxHeaders.EVENT_ID, sent.id().toString());
  }
}
