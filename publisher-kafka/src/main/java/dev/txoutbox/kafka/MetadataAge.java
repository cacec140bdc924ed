package dev.txoutbox.kafka;

import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Tells from the producer's {@code metadata-age} metric whether the cluster answered a metadata
 * request recently. A {@code send()} that timed out waiting for a topic's metadata means "the
 * cluster cannot be reached" only if no metadata answer arrived during the wait; if one did, the
 * cluster is up and the topic does not exist (or has no partitions yet). Thread-safe: stateless.
 */
final class MetadataAge {

  static final String METRIC = "metadata-age";
  static final String GROUP = "producer-metrics";

  private MetadataAge() {}

  /**
   * Whether the producer's last successful metadata update happened at or after {@code
   * sinceEpochMillis}. False when the producer exports no such metric (a test double, a wrapper
   * that hides metrics): without evidence, the cluster is not assumed reachable.
   */
  static boolean answeredSince(Producer<?, ?> producer, long sinceEpochMillis) {
    Map<MetricName, ? extends Metric> metrics;
    try {
      metrics = producer.metrics();
    } catch (RuntimeException e) {
      return false;
    }
    for (Map.Entry<MetricName, ? extends Metric> metric : metrics.entrySet()) {
      MetricName name = metric.getKey();
      if (METRIC.equals(name.name()) && GROUP.equals(name.group())) {
        // Kafka computes the age as (now - last successful update) / 1000.0, in seconds.
        if (metric.getValue().metricValue() instanceof Number seconds) {
          long lastAnswer = System.currentTimeMillis() - Math.round(seconds.doubleValue() * 1000);
          return lastAnswer >= sinceEpochMillis;
        }
        return false;
      }
    }
    return false;
  }
}
