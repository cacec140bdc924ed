package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * outbox-wal README's "With Guice" recipe on the logical server, with a schema of its own, a
 * 10-minute sweep and a listener counting what the WAL relay publishes.
 */
class WalRelayGuiceTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void tearDown() throws Exception {
    kit.close();
  }

  /** The application's own holder of the replication connection's settings. */
  record ReplicationSettings(String url, Properties credentials) {}

  /** The README's module: the writer and the sweeper from OutboxModule, the WAL relay beside. */
  static final class BillingModule extends AbstractModule {
    static final Duration SWEEP = Duration.ofMinutes(10);

    private final OutboxTables tables;
    private final RelayListener walListener;

    BillingModule(OutboxTables tables, RelayListener walListener) {
      this.tables = tables;
      this.walListener = walListener;
    }

    @Override
    protected void configure() {
      install(
          OutboxModule.builder()
              .tables(tables)
              .writerOnly() // no polling relay bound: the WAL relay's sweeper is the one
              .build());
    }

    @Provides
    @Singleton
    DSLContext dsl(DataSource dataSource) {
      return DSL.using(dataSource, SQLDialect.POSTGRES);
    }

    @Provides
    @Singleton
    WalRelay walRelay(DataSource dataSource, Publisher publisher, ReplicationSettings replication) {
      return WalRelay.builder()
          .dataSource(dataSource)
          .replicationUrl(replication.url(), replication.credentials())
          .tables(tables)
          .publisher(publisher)
          .config(RelayConfig.builder().name("billing").build())
          .sweepInterval(SWEEP)
          .listener(walListener) // the sweeper hears it too
          .build();
    }
  }

  @Test
  void theWalRelayPublishesWhatTheInjectedWriterRecordsTheEventBeforeItsSlotFirst() {
    OutboxTables tables = LogicalServer.freshOutbox("gw_");
    RecordingPublisher publisher = new RecordingPublisher();
    AtomicInteger byWal = new AtomicInteger();
    Injector injector =
        Guice.createInjector(
            new BillingModule(tables, counting(byWal)),
            new AbstractModule() {
              @Override
              protected void configure() {
                bind(DataSource.class).toInstance(LogicalServer.dataSource());
                bind(Publisher.class).toInstance(publisher);
                bind(ReplicationSettings.class)
                    .toInstance(
                        new ReplicationSettings(
                            LogicalServer.jdbcUrl(), LogicalServer.credentials()));
              }
            });
    WalRelay wal = kit.adopt(injector.getInstance(WalRelay.class));
    assertThat(injector.getInstance(WalRelay.class)).isSameAs(wal);
    // One object to run: the module binds no polling relay of its own.
    assertThatThrownBy(() -> injector.getInstance(OutboxRelay.class))
        .hasMessageContaining("writerOnly");
    Outbox outbox = injector.getInstance(Outbox.class);
    DSLContext dsl = injector.getInstance(DSLContext.class);
    // Written before the slot exists: the WAL relay publishes it as it creates the slot.
    UUID beforeTheSlot =
        dsl.transactionResult(
            c -> outbox.record(c.dsl(), OutboxEvent.of("invoice", "i0", "before", "{}")));

    wal.start();
    assertThat(byWal.get()).isEqualTo(1);
    await().atMost(WalTestKit.WAIT).until(() -> wal.sweeper().orElseThrow().isRunning());
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int k = i;
      dsl.transaction(
          c -> ids.add(outbox.record(c.dsl(), OutboxEvent.of("invoice", "i1", "e" + k, "{}"))));
    }

    await()
        .atMost(WalTestKit.WAIT)
        .untilAsserted(
            () ->
                assertThat(List.of(WalTestKit.pending(tables), byWal.get()))
                    .as("pending rows, events the WAL relay and the sweeper published")
                    .containsExactly(0, 1 + ids.size()));
    assertThat(publisher.published())
        .extracting(OutboxMessage::id)
        .containsExactlyElementsOf(WalTestKit.concat(List.of(beforeTheSlot), ids));
  }

  private static RelayListener counting(AtomicInteger published) {
    return new RelayListener() {
      @Override
      public void published(OutboxMessage message) {
        published.incrementAndGet();
      }
    };
  }
}
