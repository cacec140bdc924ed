/**
 * The Kafka publisher ({@code dev.txoutbox.kafka}) and its optional Guice module ({@code
 * dev.txoutbox.kafka.guice}). The Kafka client's types appear in the API. The standalone relay and
 * other tools find {@link dev.txoutbox.kafka.KafkaPublisherProvider} through {@link
 * java.util.ServiceLoader}.
 */
module dev.txoutbox.kafka {
  requires transitive dev.txoutbox.spi;
  requires transitive kafka.clients;
  requires org.slf4j;
  requires static com.google.guice;

  exports dev.txoutbox.kafka;
  exports dev.txoutbox.kafka.guice;

  // Guice reads the module's provider methods.
  opens dev.txoutbox.kafka.guice to
      com.google.guice;

  provides dev.txoutbox.spi.PublisherProvider with
      dev.txoutbox.kafka.KafkaPublisherProvider;
}
