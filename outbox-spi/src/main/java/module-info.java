/**
 * The publisher SPI: what a broker plugin implements ({@link dev.txoutbox.spi.Publisher}, {@link
 * dev.txoutbox.spi.PublisherProvider}) and the shared rules it may use. Requires nothing beyond
 * {@code java.base}.
 */
module dev.txoutbox.spi {
  exports dev.txoutbox.spi;
}
