/**
 * The RabbitMQ publisher ({@code dev.txoutbox.rabbit}) and its optional Guice module ({@code
 * dev.txoutbox.rabbit.guice}). The RabbitMQ client's types appear in the API. The standalone relay
 * and other tools find {@link dev.txoutbox.rabbit.RabbitPublisherProvider} through {@link
 * java.util.ServiceLoader}.
 */
module dev.txoutbox.rabbit {
  requires transitive dev.txoutbox.spi;
  requires transitive com.rabbitmq.client;
  requires org.slf4j;
  requires static com.google.guice;

  exports dev.txoutbox.rabbit;
  exports dev.txoutbox.rabbit.guice;

  // Guice reads the module's provider methods.
  opens dev.txoutbox.rabbit.guice to
      com.google.guice;

  provides dev.txoutbox.spi.PublisherProvider with
      dev.txoutbox.rabbit.RabbitPublisherProvider;
}
