/**
 * An application as a module-path user writes it: it requires txoutbox's modules by name and reads
 * jOOQ, the SPI and the broker clients through their {@code requires transitive}.
 */
module dev.txoutbox.itmodulepath {
  requires dev.txoutbox.core;
  requires dev.txoutbox.inbox;
  requires dev.txoutbox.wal;
  requires dev.txoutbox.kafka;
  requires dev.txoutbox.sqs;
  requires dev.txoutbox.rabbit;
  requires org.postgresql.jdbc;
  // PGSimpleDataSource is a javax.naming.Referenceable; the driver, an automatic module, does not
  // say so itself.
  requires java.naming;
  requires com.google.guice;
  // Guice 7 is an automatic module and cannot say it needs jakarta.inject, an explicit module,
  // which is therefore resolved only when the application requires it.
  requires jakarta.inject;

  uses dev.txoutbox.spi.PublisherProvider;
}
