package dev.txoutbox.rabbit;

import com.rabbitmq.client.ConnectionFactory;
import dev.txoutbox.testing.rabbit.RabbitBroker;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The RabbitMQ service the tests run against (the testing kit's {@link RabbitBroker}: {@code
 * txoutbox.test.rabbit-uri}, {@code TXOUTBOX_TEST_RABBIT_URI} or {@code OUTBOX_TEST_RABBIT_URI},
 * default the local broker with guest/guest), and the broker-side controls the tests need ({@code
 * rabbitmqctl}).
 */
final class RabbitTestBroker {

  static final RabbitBroker BROKER = RabbitBroker.fromEnvironment();

  static final String URI = BROKER.uri();

  private RabbitTestBroker() {}

  /** A new factory for the test broker. */
  static ConnectionFactory factory() {
    return AmqpUris.parse(URI);
  }

  /** A factory for the test broker's host at a port nobody listens on. */
  static ConnectionFactory factoryToAClosedPort() throws IOException {
    ConnectionFactory factory = factory();
    try (ServerSocket socket = new ServerSocket(0)) {
      factory.setPort(socket.getLocalPort());
    }
    return factory;
  }

  /** Forcibly closes, from the broker's side, the connection the client named {@code name}. */
  static void closeConnection(String name) {
    String pid =
        connectionPid(name)
            .orElseThrow(() -> new IllegalStateException("no connection named " + name));
    rabbitmqctl("close_connection", pid, "closed by a txoutbox test");
  }

  /** How many channels the connection named {@code name} has open, if it is connected. */
  static Optional<Integer> channelCount(String name) {
    return connectionLine(name).map(fields -> Integer.parseInt(fields[1]));
  }

  /** The broker's id of the connection named {@code name}, if it is connected. */
  static Optional<String> connectionPid(String name) {
    return connectionLine(name).map(fields -> fields[0]);
  }

  private static Optional<String[]> connectionLine(String name) {
    String quoted = "{\"connection_name\",\"" + name + "\"}";
    for (String line :
        rabbitmqctl(
                "list_connections",
                "pid",
                "channels",
                "client_properties",
                "-q",
                "--no-table-headers")
            .split("\n")) {
      if (line.contains(quoted)) {
        return Optional.of(line.split("\t"));
      }
    }
    return Optional.empty();
  }

  /** Runs {@code rabbitmqctl} with {@code args} and returns what it printed. */
  static String rabbitmqctl(String... args) {
    List<String> command = new ArrayList<>();
    command.add("rabbitmqctl");
    command.addAll(List.of(args));
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output;
      try (InputStream in = process.getInputStream()) {
        output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(command + " failed: " + output);
      }
      return output;
    } catch (IOException e) {
      throw new IllegalStateException(command + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(command + " interrupted", e);
    }
  }
}
