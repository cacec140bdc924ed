package dev.txoutbox.metrics;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.TestSupport;
import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Builds and runs a relay and the Guice module without metrics; {@link
 * OptionalLibrariesStayIsolatedTest} loads it in a class loader without Micrometer. Public with a
 * public constructor for that loader.
 */
public final class RelayWithoutMicrometer implements Supplier<String> {

  @Override
  public String get() {
    try (TestDatabase db = TestDatabase.create("no_micrometer")) {
      RecordingPublisher publisher = new RecordingPublisher();
      OutboxRelay relay = TestSupport.relayBuilder(db, publisher).build();
      int published;
      long pending;
      try {
        Outbox outbox = Outbox.builder().relay(relay).build();
        DSL.using(db.dataSource(), SQLDialect.POSTGRES)
            .transaction(tx -> outbox.record(tx.dsl(), "order", "o-1", "order.created", "{}"));
        relay.runOnce();
        published = publisher.published().size();
        pending = relay.admin().pendingCount();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } finally {
        relay.close();
      }
      Injector injector =
          Guice.createInjector(
              OutboxModule.builder().schema(db.schema()).build(),
              new AbstractModule() {
                @Override
                protected void configure() {
                  bind(DataSource.class).toInstance(db.dataSource());
                  bind(Publisher.class).toInstance(publisher);
                }
              });
      OutboxRelay bound = injector.getInstance(OutboxRelay.class);
      boolean sameSchema =
          bound.schema().equals(db.schema())
              && injector.getInstance(OutboxAdmin.class) == bound.admin();
      bound.close();
      return "relay published "
          + published
          + ", pending "
          + pending
          + "; module relay "
          + (sameSchema ? "on the schema" : "elsewhere");
    }
  }
}
