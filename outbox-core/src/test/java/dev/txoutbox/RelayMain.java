package dev.txoutbox;

import dev.txoutbox.testing.RecordingPublisher;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A service's {@code main} for {@link RelayLifecycleTest}, run in a child JVM: {@code start-only}
 * starts the relay and returns; {@code await} registers the shutdown hook, starts the relay and
 * waits for it to be closed. Arguments: mode, JDBC URL, schema.
 */
public final class RelayMain {

  static final String STARTED = "relay started";
  static final String AWAITING = "awaiting termination";

  private RelayMain() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(args[1]);
    dataSource.setUser("postgres");
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(dataSource)
            .schema(args[2])
            .publisher(new RecordingPublisher())
            .config(RelayConfig.builder().name("lifecycle-child").build())
            .build();
    if (args[0].equals("await")) {
      relay.closeOnShutdown();
      relay.start();
      System.out.println(STARTED);
      System.out.println(AWAITING);
      System.out.flush();
      relay.awaitTermination();
    } else {
      relay.start();
      System.out.println(STARTED);
    }
  }
}
