package dev.txoutbox.kafka;

import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;

/**
 * {@link KafkaPublisher#checkBroker}: describes the cluster with an admin client of its own, built
 * from the producer's connection and security settings and bounded by the check's timeout, then
 * closes it. The publisher's producer is left alone. Thread-safe (stateless).
 */
final class KafkaBrokerCheck {

  /** The {@code client.id} of the check's admin client. */
  static final String CLIENT_ID = "txoutbox-broker-check";

  private static final Set<String> ADMIN_SETTINGS = AdminClientConfig.configNames();

  private KafkaBrokerCheck() {}

  static BrokerCheck run(Map<String, Object> producerConfig, Duration timeout)
      throws InterruptedException {
    Object servers = producerConfig.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    Admin admin;
    try {
      admin = Admin.create(adminConfig(producerConfig, millis));
    } catch (KafkaException e) {
      return BrokerCheck.unreachable(
          "cannot create a Kafka client for " + servers + ": " + KafkaFailureClassifier.describe(e),
          e);
    }
    try {
      DescribeClusterResult cluster =
          admin.describeCluster(new DescribeClusterOptions().timeoutMs(millis));
      int brokers = cluster.nodes().get(millis, TimeUnit.MILLISECONDS).size();
      String clusterId = cluster.clusterId().get(millis, TimeUnit.MILLISECONDS);
      return BrokerCheck.reachable(
          "Kafka at "
              + servers
              + " answered: cluster "
              + clusterId
              + ", "
              + brokers
              + " broker(s)");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return BrokerCheck.unreachable(
          "Kafka at "
              + servers
              + (cause instanceof AuthenticationException
                  ? " refused the credentials (authentication failed): "
                  : " did not describe its cluster within " + DurationText.of(timeout) + ": ")
              + KafkaFailureClassifier.describe(cause),
          cause);
    } catch (TimeoutException e) {
      return BrokerCheck.unreachable(
          "Kafka at " + servers + " did not answer within " + DurationText.of(timeout), e);
    } finally {
      admin.close(Duration.ZERO);
    }
  }

  /** The producer's settings an admin client knows (connection, security), with the timeout. */
  private static Map<String, Object> adminConfig(Map<String, Object> producerConfig, int millis) {
    Map<String, Object> config = new HashMap<>();
    producerConfig.forEach(
        (name, value) -> {
          if (ADMIN_SETTINGS.contains(name)) {
            config.put(name, value);
          }
        });
    config.put(AdminClientConfig.CLIENT_ID_CONFIG, CLIENT_ID);
    config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
    return config;
  }
}
