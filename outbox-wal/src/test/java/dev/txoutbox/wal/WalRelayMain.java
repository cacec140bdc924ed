package dev.txoutbox.wal;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Properties;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A WAL relay in a JVM of its own, for {@link WalRelayKillTest}: args are the JDBC URL, the schema,
 * the table prefix and a file where each published event id is appended (and forced to disk) before
 * the publisher answers, as a broker's acknowledgement would be. Publishes batches of 10, slowly,
 * until it is killed.
 */
public final class WalRelayMain {

  private WalRelayMain() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    OutboxTables tables = OutboxTables.of(args[1], args[2]);
    Path out = Path.of(args[3]);
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(url);
    dataSource.setUser("postgres");
    Properties credentials = new Properties();
    credentials.setProperty("user", "postgres");
    try (FileChannel file =
        FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      WalRelay relay =
          WalRelay.builder()
              .sweeper(false) // no polling relay behind it in this test
              .dataSource(dataSource)
              .replicationUrl(url, credentials)
              .tables(tables)
              .config(RelayConfig.builder().name("child").batchSize(10).build())
              .publisher(
                  messages -> {
                    StringBuilder sb = new StringBuilder();
                    for (OutboxMessage m : messages) {
                      sb.append(m.id()).append('\n');
                    }
                    try {
                      file.write(
                          java.nio.ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8)));
                      file.force(false);
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                    Thread.sleep(100); // 30 batches take 3 s: the test kills it well before the end
                    return messages.stream().map(m -> PublishResult.published()).toList();
                  })
              .build();
      relay.start();
      Thread.currentThread().join(); // until the test kills the process
    }
  }
}
