package dev.txoutbox.rabbit;

import com.rabbitmq.client.BuiltinExchangeType;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSettings;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code rabbit}: the {@link RabbitPublisher} as the standalone relay and the benchmarks find it,
 * with the settings {@code amqp-uri}, {@code exchange}, {@code declare-exchange}, {@code
 * send-timeout} and {@code unroutable-is-permanent}; the connection is named after {@link
 * PublisherSettings#clientName()}. Errors name the settings as flags ({@code --send-timeout must be
 * positive but was 0ms}). Thread-safe (stateless).
 */
public final class RabbitPublisherProvider implements PublisherProvider {

  private static final List<PublisherSetting> SETTINGS =
      List.of(
          PublisherSetting.text(
                  "amqp-uri",
                  "URI",
                  "amqp://user:password@host:5672/vhost. Put it in a settings file to keep the"
                      + " password off the command line.")
              .masked(),
          PublisherSetting.text(
              "exchange",
              "EXCHANGE",
              "The exchange; the routing key is the event type. \"\" is the default exchange."),
          PublisherSetting.text(
              "declare-exchange",
              "TYPE",
              "Declare the exchange (durable) as direct, fanout, topic, headers, or a plugin's"
                  + " type such as x-consistent-hash."),
          PublisherSetting.duration(
              "send-timeout",
              "30s",
              "How long one batch may take, from the first send to the last confirm."),
          PublisherSetting.flag(
              "unroutable-is-permanent",
              "Dead-letter unroutable events at once instead of retrying them."));

  /** The setting that gives each builder option, for the builder's error messages. */
  private static final Map<String, String> FLAGS =
      Map.of(
          "uri", "--amqp-uri",
          "exchange", "--exchange",
          "declareExchange", "--declare-exchange",
          "sendTimeout", "--send-timeout",
          "unroutableIsPermanent", "--unroutable-is-permanent");

  /** For {@link java.util.ServiceLoader}. */
  public RabbitPublisherProvider() {}

  @Override
  public String name() {
    return "rabbit";
  }

  @Override
  public List<PublisherSetting> settings() {
    return SETTINGS;
  }

  /**
   * A publisher that connects on its first batch.
   *
   * @throws IllegalArgumentException naming the setting as its flag when one is missing or invalid
   */
  @Override
  public Publisher create(PublisherSettings settings) {
    RabbitPublisher.Builder b =
        RabbitPublisher.builder()
            .uri(settings.required("amqp-uri"))
            // "" is the default exchange: given, it is a value, not a missing setting
            .exchange(settings.text("exchange").orElseGet(() -> settings.required("exchange")))
            .connectionName(settings.clientName())
            .unroutableIsPermanent(settings.flag("unroutable-is-permanent"));
    settings.text("declare-exchange").ifPresent(t -> b.declareExchange(exchangeType(t), true));
    settings.duration("send-timeout").ifPresent(b::sendTimeout);
    try {
      return b.build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw PublisherSettings.inFlags(e, FLAGS);
    }
  }

  private static BuiltinExchangeType exchangeType(String text) {
    for (BuiltinExchangeType t : BuiltinExchangeType.values()) {
      if (t.getType().equals(text.trim().toLowerCase(Locale.ROOT))) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "--declare-exchange must be one of "
            + Arrays.stream(BuiltinExchangeType.values())
                .map(BuiltinExchangeType::getType)
                .collect(Collectors.joining(", "))
            + " but was '"
            + text
            + "'");
  }
}
