/**
 * The Amazon SQS publisher ({@code dev.txoutbox.sqs}) and its optional Guice module ({@code
 * dev.txoutbox.sqs.guice}). The SQS client's types appear in the API. The standalone relay and
 * other tools find {@link dev.txoutbox.sqs.SqsPublisherProvider} through {@link
 * java.util.ServiceLoader}.
 */
module dev.txoutbox.sqs {
  requires transitive dev.txoutbox.spi;
  requires transitive software.amazon.awssdk.services.sqs;
  requires software.amazon.awssdk.awscore;
  requires software.amazon.awssdk.core;
  requires software.amazon.awssdk.regions;
  requires software.amazon.awssdk.protocols.jsoncore;
  requires software.amazon.awssdk.thirdparty.jackson.core;
  requires org.slf4j;
  requires static com.google.guice;

  exports dev.txoutbox.sqs;
  exports dev.txoutbox.sqs.guice;

  // Guice reads the module's provider methods.
  opens dev.txoutbox.sqs.guice to
      com.google.guice;

  provides dev.txoutbox.spi.PublisherProvider with
      dev.txoutbox.sqs.SqsPublisherProvider;
}
