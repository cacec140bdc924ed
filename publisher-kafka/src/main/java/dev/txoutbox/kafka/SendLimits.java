package dev.txoutbox.kafka;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * How long a batch waits, derived from the producer's own limits rather than a deadline of ours.
 *
 * <p>Kafka bounds {@code send()} by {@code max.block.ms} (waiting for metadata or buffer space) and
 * completes every record's future within {@code delivery.timeout.ms} after {@code send()} returned.
 * The publisher waits for that outcome plus a {@linkplain #margin() margin}, so it never gives up
 * on a record the producer may still deliver. Immutable and thread-safe.
 *
 * @param maxBlock the producer's {@code max.block.ms}
 * @param deliveryTimeout the producer's {@code delivery.timeout.ms}
 */
record SendLimits(Duration maxBlock, Duration deliveryTimeout) {

  /** The smallest {@link #margin()}: one second. */
  static final Duration MIN_MARGIN = Duration.ofSeconds(1);

  /** The limits of an effective producer configuration (Kafka's defaults for what is not set). */
  static SendLimits of(Map<String, Object> producerConfig) {
    return new SendLimits(
        Duration.ofMillis(
            ProducerSettings.number(producerConfig, ProducerConfig.MAX_BLOCK_MS_CONFIG)),
        Duration.ofMillis(
            ProducerSettings.number(producerConfig, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)));
  }

  /**
   * Time allowed beyond {@code delivery.timeout.ms} for the producer's I/O thread to expire a
   * record and complete its future: a tenth of the delivery timeout, at least {@link #MIN_MARGIN}.
   */
  Duration margin() {
    Duration tenth = deliveryTimeout.dividedBy(10);
    return tenth.compareTo(MIN_MARGIN) > 0 ? tenth : MIN_MARGIN;
  }

  /** How long to wait for one record's outcome after {@code send()} returned it. */
  Duration outcomeWait() {
    return deliveryTimeout.plus(margin());
  }

  /**
   * How long the hand-over of one batch may last: two {@code max.block.ms}, since one send may wait
   * that long for the metadata of a missing topic and the rest of the batch still deserves a try.
   */
  Duration handOver() {
    return maxBlock.multipliedBy(2);
  }

  /** The longest a batch can take: the hand-over, then the outcome wait of its last record. */
  Duration batchBound() {
    return handOver().plus(outcomeWait());
  }

  @Override
  public String toString() {
    return "max.block.ms "
        + maxBlock.toMillis()
        + ", delivery.timeout.ms "
        + deliveryTimeout.toMillis()
        + ", outcome margin "
        + margin().toMillis()
        + " ms";
  }
}
