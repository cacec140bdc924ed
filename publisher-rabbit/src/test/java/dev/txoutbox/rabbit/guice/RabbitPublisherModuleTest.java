package dev.txoutbox.rabbit.guice;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.txoutbox.rabbit.RabbitPublisher;
import dev.txoutbox.spi.Publisher;
import org.junit.jupiter.api.Test;

/** The Guice module binds one publisher built by the public builder. */
class RabbitPublisherModuleTest {

  @Test
  void bindsOneSingletonPublisherBuiltFromTheBuilder() {
    Injector injector =
        Guice.createInjector(
            new RabbitPublisherModule(
                RabbitPublisher.builder()
                    .uri("amqp://guest:guest@127.0.0.1:5672/%2F")
                    .exchange("outbox")
                    .connectionName("txoutbox-test-guice")));

    Publisher publisher = injector.getInstance(Publisher.class);
    try {
      assertThat(publisher).isInstanceOf(RabbitPublisher.class);
      assertThat(injector.getInstance(Publisher.class)).isSameAs(publisher);
      assertThat(injector.getInstance(RabbitPublisher.class)).isSameAs(publisher);
      assertThat(publisher.name()).isEqualTo("rabbitmq");
    } finally {
      publisher.close();
    }
  }
}
