package dev.txoutbox.testing.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.txoutbox.spi.SecretMasking;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * A RabbitMQ broker that the user runs (a local service, a CI service container), for tests: its
 * address, a connection factory for it, and the few broker-side steps a test needs (a queue of its
 * own, reading messages back). RabbitMQ cannot run inside a JVM, and an in-JVM AMQP broker behaves
 * differently from RabbitMQ on returned {@code mandatory} messages, so this helper does not start
 * one: it finds yours.
 *
 * <p>The broker is the AMQP URI in system property {@value #URI_PROPERTY} or environment variable
 * {@value #URI_VARIABLE} (the older {@value #LEGACY_URI_VARIABLE} is read too), else {@value
 * #DEFAULT_URI}: {@code 127.0.0.1:5672}, user {@code guest}, password {@code guest}, virtual host
 * {@code /}. Percent-encode {@code / # ? @} in the user name and password.
 *
 * <pre>{@code
 * RabbitBroker rabbit = RabbitBroker.fromEnvironment();
 * assumeTrue(rabbit.isReachable(Duration.ofSeconds(2)), rabbit + " is not running");
 * String queue = rabbit.declareQueue("orders");           // exclusive to nobody, deleted by you
 * RabbitPublisher publisher = RabbitPublisher.builder().uri(rabbit.uri())...;
 * List<GetResponse> got = rabbit.receive(queue, 1, Duration.ofSeconds(10));
 * rabbit.deleteQueue(queue);
 * }</pre>
 *
 * <p>Needs {@code com.rabbitmq:amqp-client} on the test class path: this kit declares it optional,
 * so add it beside the kit. {@link #toString()} and every message show the URI without its
 * password. This class is immutable and thread-safe.
 */
public final class RabbitBroker {

  /** The system property naming the broker's AMQP URI. */
  public static final String URI_PROPERTY = "txoutbox.test.rabbit-uri";

  /** The environment variable naming the broker's AMQP URI, read when the property is not set. */
  public static final String URI_VARIABLE = "TXOUTBOX_TEST_RABBIT_URI";

  /** The environment variable earlier versions of txoutbox's own tests read; read last. */
  public static final String LEGACY_URI_VARIABLE = "OUTBOX_TEST_RABBIT_URI";

  /** The broker when nothing is configured: the local service with RabbitMQ's default user. */
  public static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/%2F";

  private final String uri;

  private RabbitBroker(String uri) {
    this.uri = uri;
    factory(); // checks the URI once, here
  }

  /**
   * The broker named by {@value #URI_PROPERTY}, {@value #URI_VARIABLE} or {@value
   * #LEGACY_URI_VARIABLE}, in that order, else {@value #DEFAULT_URI}.
   *
   * @throws IllegalArgumentException if the configured value is not an AMQP URI (the message shows
   *     it without its password and names where it came from)
   */
  public static RabbitBroker fromEnvironment() {
    return fromSettings(System::getProperty, System::getenv);
  }

  static RabbitBroker fromSettings(UnaryOperator<String> properties, UnaryOperator<String> env) {
    String configured = properties.apply(URI_PROPERTY);
    String source = URI_PROPERTY;
    if (configured == null) {
      configured = env.apply(URI_VARIABLE);
      source = URI_VARIABLE;
    }
    if (configured == null) {
      configured = env.apply(LEGACY_URI_VARIABLE);
      source = LEGACY_URI_VARIABLE;
    }
    if (configured == null) {
      return new RabbitBroker(DEFAULT_URI);
    }
    try {
      return new RabbitBroker(configured);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + ": " + e.getMessage());
    }
  }

  /**
   * The broker at {@code uri}, such as {@code amqp://app:secret@rabbit:5672/shop}.
   *
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException if {@code uri} is not an AMQP URI
   */
  public static RabbitBroker at(String uri) {
    return new RabbitBroker(Objects.requireNonNull(uri, "uri"));
  }

  /** The broker's AMQP URI, password included: give it to a publisher, never to a log. */
  public String uri() {
    return uri;
  }

  /** The broker's AMQP URI with its password masked, for logs and messages. */
  public String maskedUri() {
    return Objects.requireNonNull(SecretMasking.maskUri(uri));
  }

  /** A new connection factory for the broker. */
  public ConnectionFactory factory() {
    String scheme = uri.contains("://") ? uri.substring(0, uri.indexOf("://")) : "";
    if (!scheme.equalsIgnoreCase("amqp") && !scheme.equalsIgnoreCase("amqps")) {
      throw invalid("the scheme must be amqp or amqps");
    }
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
    } catch (Exception e) {
      // Never the client's own message: it may quote the password.
      throw invalid(e.getClass().getSimpleName());
    }
    return factory;
  }

  private IllegalArgumentException invalid(String why) {
    return new IllegalArgumentException(
        "uri must be an AMQP URI such as amqp://user:password@host:5672/vhost but was '"
            + maskedUri()
            + "' ("
            + why
            + ")");
  }

  /**
   * Whether the broker accepts a connection (address, credentials and virtual host) within {@code
   * timeout}; for a test to skip itself, or fail with a clear message, when no broker runs.
   *
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  public boolean isReachable(Duration timeout) {
    requirePositive(timeout);
    ConnectionFactory factory = factory();
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    factory.setConnectionTimeout(millis);
    factory.setHandshakeTimeout(millis);
    factory.setAutomaticRecoveryEnabled(false);
    try (Connection ignored = factory.newConnection("txoutbox-test-probe")) {
      return true;
    } catch (IOException | TimeoutException e) {
      return false;
    }
  }

  /**
   * Declares a durable queue with a unique name starting with {@code prefix}, bound to nothing (the
   * default exchange routes to it by name); returns its name. Delete it with {@link
   * #deleteQueue(String)}.
   *
   * @throws IllegalStateException if the broker refused or could not be reached
   */
  public String declareQueue(String prefix) {
    String name =
        Objects.requireNonNull(prefix, "prefix")
            + "-"
            + UUID.randomUUID().toString().substring(0, 8);
    onChannel(channel -> channel.queueDeclare(name, true, false, false, Map.of()));
    return name;
  }

  /**
   * Deletes queue {@code name} and its messages; nothing if it does not exist.
   *
   * @throws IllegalStateException if the broker refused or could not be reached
   */
  public void deleteQueue(String name) {
    onChannel(channel -> channel.queueDelete(name));
  }

  /**
   * Takes messages from queue {@code name} (acknowledging them) until {@code count} arrived or
   * {@code timeout} passed; returns them, at most {@code count}, in queue order.
   *
   * @throws IllegalStateException if the broker refused or could not be reached
   */
  public List<GetResponse> receive(String name, int count, Duration timeout) {
    requirePositive(timeout);
    List<GetResponse> received = new ArrayList<>();
    onChannel(
        channel -> {
          long deadline = System.nanoTime() + timeout.toNanos();
          while (received.size() < count && System.nanoTime() < deadline) {
            GetResponse response = channel.basicGet(name, true);
            if (response == null) {
              TimeUnit.MILLISECONDS.sleep(20);
            } else {
              received.add(response);
            }
          }
          return null;
        });
    return received;
  }

  /** Something to do on a channel of a fresh connection. */
  @FunctionalInterface
  private interface ChannelWork {
    Object run(Channel channel) throws Exception;
  }

  private void onChannel(ChannelWork work) {
    ConnectionFactory factory = factory();
    factory.setAutomaticRecoveryEnabled(false);
    try (Connection connection = factory.newConnection("txoutbox-test");
        Channel channel = connection.createChannel()) {
      work.run(channel);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted talking to RabbitMQ at " + maskedUri(), e);
    } catch (Exception e) {
      throw new IllegalStateException(
          "RabbitMQ at "
              + maskedUri()
              + " failed: "
              + SecretMasking.maskText(String.valueOf(e.getMessage())),
          e);
    }
  }

  private static void requirePositive(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must be positive but was " + timeout);
    }
  }

  /** The broker's URI without its password. */
  @Override
  public String toString() {
    return "RabbitMQ at " + maskedUri();
  }
}
