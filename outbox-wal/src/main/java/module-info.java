/**
 * The WAL relay: {@link dev.txoutbox.wal.WalRelay} reads the outbox table's inserts from a logical
 * replication slot ({@code pgoutput}) and publishes them through the publisher SPI in commit order.
 * The PostgreSQL driver's replication API is used inside; outbox-core, the SPI, the schema and jOOQ
 * appear in the API. Micrometer is optional ({@code requires static}): only a relay given {@code
 * metrics(...)} needs it.
 */
module dev.txoutbox.wal {
  requires transitive dev.txoutbox.core;
  requires org.postgresql.jdbc;
  requires org.slf4j;
  requires static org.jspecify;
  requires static micrometer.core;

  exports dev.txoutbox.wal;
}
