package dev.txoutbox.testing.kafka;

import java.io.IOException;
import java.io.InputStream;

/**
 * The child JVM's entry point for {@link EmbeddedKafka}: formats the storage directory if it is
 * new, then runs a KRaft broker until it receives SIGTERM or its parent goes away.
 *
 * <p>The parent keeps this process's standard input open; when the parent dies, even by {@code kill
 * -9}, the pipe closes, this process reads end-of-file and exits, so no broker is ever left behind.
 *
 * <p>Arguments: the {@code server.properties} file and the cluster id.
 */
public final class EmbeddedKafkaMain {

  private EmbeddedKafkaMain() {}

  /** Formats (if needed) and runs the broker. */
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      throw new IllegalArgumentException(
          "usage: EmbeddedKafkaMain <server.properties> <clusterId>");
    }
    exitWhenParentGoes(System.in);
    int formatted =
        kafka.tools.StorageTool.execute(
            new String[] {
              "format", "--config", args[0], "--cluster-id", args[1], "--ignore-formatted"
            },
            System.out);
    if (formatted != 0) {
      System.err.println("formatting the storage failed with exit code " + formatted);
      System.exit(formatted);
    }
    kafka.Kafka.main(new String[] {args[0]});
  }

  private static void exitWhenParentGoes(InputStream parent) {
    Thread watcher =
        new Thread(
            () -> {
              try {
                while (parent.read() != -1) {
                  // the parent never writes; only end-of-file matters
                }
              } catch (IOException e) {
                // the pipe broke: the parent is gone
              }
              System.exit(0);
            },
            "embedded-kafka-parent-watcher");
    watcher.setDaemon(true);
    watcher.start();
  }
}
