/**
 * The publisher SPI: what a broker plugin implements ({@link dev.txoutbox.spi.Publisher}, {@link
 * dev.txoutbox.spi.PublisherProvider}) and the shared rules it may use. Requires nothing at run
 * time beyond {@code java.base}; the jspecify nullness annotations are read at compile time only.
 */
module dev.txoutbox.spi {
  requires static org.jspecify;

  exports dev.txoutbox.spi;
}
