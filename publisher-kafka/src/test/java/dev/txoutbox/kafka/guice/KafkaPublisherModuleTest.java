package dev.txoutbox.kafka.guice;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.txoutbox.kafka.KafkaPublisher;
import dev.txoutbox.spi.Publisher;
import org.apache.kafka.clients.producer.MockProducer;
import org.junit.jupiter.api.Test;

class KafkaPublisherModuleTest {

  @Test
  void bindsOnePublisherBuiltFromTheBuilder() {
    Injector injector =
        Guice.createInjector(
            new KafkaPublisherModule(
                KafkaPublisher.builder()
                    .bootstrapServers("unused:9092")
                    .producerFactory(config -> new MockProducer<>())));

    Publisher publisher = injector.getInstance(Publisher.class);
    try {
      assertThat(publisher).isInstanceOf(KafkaPublisher.class);
      assertThat(injector.getInstance(Publisher.class)).isSameAs(publisher);
      assertThat(injector.getInstance(KafkaPublisher.class)).isSameAs(publisher);
    } finally {
      publisher.close();
    }
  }

  @Test
  void buildsAPlainPublisherFromBootstrapServers() {
    Injector injector =
        Guice.createInjector(KafkaPublisherModule.forBootstrapServers("127.0.0.1:9092"));

    try (Publisher publisher = injector.getInstance(Publisher.class)) {
      assertThat(publisher.name()).isEqualTo("kafka");
    }
  }
}
