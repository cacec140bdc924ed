package dev.txoutbox.kafka;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the publisher's current producer: creates it, replaces it after a fatal failure, closes it.
 *
 * <p>Logs only changes of state: a cluster that keeps failing producers (failed authentication, a
 * broker too old) makes every batch replace its producer, and only the first replacement of such a
 * streak is logged, at WARN; the rest, and the creation of each replacement, go to DEBUG until a
 * batch is acknowledged again, which is logged once at INFO with the count. Thread-safe.
 */
final class ProducerHolder {

  private static final Logger log = LoggerFactory.getLogger(ProducerHolder.class);

  private final ProducerFactory factory;
  private final Map<String, Object> config;
  private Producer<String, byte[]> current;
  private boolean closed;
  private volatile boolean failing;
  private int replacements;

  /** Creates the first producer at once, so configuration errors surface when building. */
  ProducerHolder(ProducerFactory factory, Map<String, Object> config) {
    this.factory = factory;
    this.config = config;
    this.current = create();
  }

  /**
   * The producer to send the next batch with, created anew if the last one was discarded.
   *
   * @throws IllegalStateException if the holder was closed
   */
  synchronized Producer<String, byte[]> current() {
    if (closed) {
      throw new IllegalStateException("the Kafka publisher is closed");
    }
    if (current == null) {
      current = create();
      replacements++;
      log.debug("Created a new Kafka producer to replace one that failed fatally");
    }
    return current;
  }

  /**
   * Closes {@code broken} without waiting, and makes the next {@link #current()} create a new
   * producer. Does nothing if {@code broken} was already replaced.
   */
  void discard(Producer<String, byte[]> broken) {
    boolean first;
    synchronized (this) {
      if (current != broken) {
        return;
      }
      current = null;
      first = !failing;
      failing = true;
    }
    if (first) {
      log.warn(
          "Kafka producer failed fatally; closing it, the next batch gets a new one (further"
              + " replacements are logged at DEBUG until a batch is acknowledged)");
    } else {
      log.debug("Kafka producer failed fatally again; closing it");
    }
    closeQuietly(broken, Duration.ZERO);
  }

  /** Records that a batch was acknowledged: a streak of replacements, if any, is over. */
  void served() {
    if (!failing) {
      return;
    }
    int replaced;
    synchronized (this) {
      if (!failing) {
        return;
      }
      failing = false;
      replaced = replacements;
      replacements = 0;
    }
    log.info("Kafka producer works again after {} replacement(s)", replaced);
  }

  /** Closes the current producer, waiting at most {@code timeout} for records in flight. */
  void close(Duration timeout) {
    Producer<String, byte[]> last;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      last = current;
      current = null;
    }
    if (last != null) {
      closeQuietly(last, timeout);
    }
  }

  private Producer<String, byte[]> create() {
    Producer<String, byte[]> producer = factory.create(config);
    if (producer == null) {
      throw new IllegalStateException("the producerFactory returned null");
    }
    return producer;
  }

  private static void closeQuietly(Producer<String, byte[]> producer, Duration timeout) {
    try {
      producer.close(timeout);
    } catch (RuntimeException e) {
      log.warn("Closing a Kafka producer failed", e);
    }
  }
}
