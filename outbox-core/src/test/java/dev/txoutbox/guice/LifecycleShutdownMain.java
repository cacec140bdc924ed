package dev.txoutbox.guice;

import dev.txoutbox.OutboxRelay;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Run by {@link OutboxLifecycleShutdownTest} in a JVM of its own: starts a lifecycle with {@code
 * closeOnShutdown()} over a real relay (arguments: JDBC URL, schema), prints {@code started}, and
 * waits to be stopped. Its publisher prints, when closed, whether the relay still ran.
 */
public final class LifecycleShutdownMain {

  private LifecycleShutdownMain() {}

  /** Starts, then sleeps until the JVM is asked to stop. */
  public static void main(String[] args) throws Exception {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(args[0]);
    dataSource.setUser("postgres");
    DataSource ds = dataSource;
    OutboxRelay[] relay = new OutboxRelay[1];
    Publisher publisher =
        new Publisher() {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages) {
            return messages.stream().map(m -> PublishResult.published()).toList();
          }

          @Override
          public void close() {
            System.out.println("publisher closed, relay running: " + relay[0].isRunning());
            System.out.flush();
          }
        };
    relay[0] = OutboxRelay.builder().dataSource(ds).schema(args[1]).publisher(publisher).build();
    OutboxLifecycle.builder().outbox("main", relay[0], publisher).build().closeOnShutdown().start();
    System.out.println("started, relay running: " + relay[0].isRunning());
    System.out.flush();
    Thread.sleep(120_000);
  }
}
