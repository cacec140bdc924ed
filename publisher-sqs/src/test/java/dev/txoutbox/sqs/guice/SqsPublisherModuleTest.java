package dev.txoutbox.sqs.guice;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import com.google.inject.multibindings.OptionalBinder;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.sqs.FakeSqs;
import dev.txoutbox.sqs.SqsPublisher;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

class SqsPublisherModuleTest {

  private final FakeSqs client = new FakeSqs();
  private final AbstractModule clientModule =
      new AbstractModule() {
        @Override
        protected void configure() {
          bind(SqsAsyncClient.class).toInstance(client);
        }
      };

  @Test
  void bindsOneSqsPublisherOnTheBoundClientAndLeavesTheClientOpen() {
    Injector injector =
        Guice.createInjector(clientModule, SqsPublisherModule.routes(Map.of("order", "orders")));

    Publisher publisher = injector.getInstance(Publisher.class);
    publisher.close();

    assertThat(publisher).isInstanceOf(SqsPublisher.class);
    assertThat(injector.getInstance(Publisher.class)).isSameAs(publisher);
    assertThat(client.closeCalls).hasValue(0);
  }

  @Test
  void passesTheBuilderToTheConfiguration() {
    Injector injector =
        Guice.createInjector(
            clientModule,
            new SqsPublisherModule(
                b -> b.route("order", "orders").sendTimeout(Duration.ofSeconds(3))));

    assertThat(injector.getInstance(Publisher.class).toString()).contains("sendTimeout=3s");
  }

  @Test
  void fillsTheOptionalPublisherThatTheOutboxModuleDeclares() {
    Injector injector =
        Guice.createInjector(
            clientModule,
            SqsPublisherModule.routes(Map.of("order", "orders")),
            new AbstractModule() {
              @Override
              protected void configure() {
                OptionalBinder.newOptionalBinder(binder(), Publisher.class);
              }
            });

    assertThat(injector.getInstance(Key.get(new TypeLiteral<Optional<Publisher>>() {})))
        .containsInstanceOf(SqsPublisher.class);
  }
}
