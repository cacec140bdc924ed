package dev.txoutbox.rabbit;

import com.rabbitmq.client.BuiltinExchangeType;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSettings;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code rabbit}: the {@link RabbitPublisher} as the standalone relay and the benchmarks find it.
 * Stateless.
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
              "The exchange; the routing key is the event type. \"\" is the default."),
          PublisherSetting.text(
              "declare-exchange",
              "TYPE",
              "Declare the exchange (durable) as direct, fanout, topic or headers."),
          PublisherSetting.duration(
              "send-timeout",
              "30s",
              "How long one batch may take, from the first send to the last confirm."),
          PublisherSetting.flag(
              "unroutable-is-permanent",
              "Dead-letter unroutable events at once instead of retrying them."));

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

  @Override
  public Publisher create(PublisherSettings settings) {
    RabbitPublisher.Builder b =
        RabbitPublisher.builder()
            .uri(settings.required("amqp-uri"))
            .exchange(settings.required("exchange"))
            .connectionName(settings.clientName())
            .unroutableIsPermanent(settings.flag("unroutable-is-permanent"));
    settings.text("declare-exchange").ifPresent(t -> b.declareExchange(exchangeType(t), true));
    settings.duration("send-timeout").ifPresent(b::sendTimeout);
    return b.build();
  }

  private static BuiltinExchangeType exchangeType(String text) {
    for (BuiltinExchangeType t : BuiltinExchangeType.values()) {
      if (t.getType().equals(text.trim().toLowerCase(Locale.ROOT))) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "--declare-exchange must be one of "
            + Arrays.stream(BuiltinExchangeType.values()).map(BuiltinExchangeType::getType).toList()
            + " but was '"
            + text
            + "'");
  }
}
