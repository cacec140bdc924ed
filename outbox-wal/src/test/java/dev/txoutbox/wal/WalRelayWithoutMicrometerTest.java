package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Properties;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Micrometer is optional: a WAL relay built without metrics runs without it on the class path. */
class WalRelayWithoutMicrometerTest {

  @Test
  void aRelayWithoutMetricsRunsWithoutMicrometerOnTheClassPath() throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    URL[] withoutMicrometer =
        Arrays.stream(classPath.split(File.pathSeparator))
            .filter(entry -> !entry.replace('\\', '/').contains("/io/micrometer/"))
            .map(WalRelayWithoutMicrometerTest::url)
            .toArray(URL[]::new);
    assertThat(withoutMicrometer.length)
        .as("the class path had Micrometer to leave out")
        .isLessThan(classPath.split(File.pathSeparator).length);
    try (URLClassLoader loader =
        new URLClassLoader(withoutMicrometer, ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> loader.loadClass("io.micrometer.core.instrument.MeterRegistry"))
          .isInstanceOf(ClassNotFoundException.class);
      @SuppressWarnings("unchecked")
      Function<String, String> run =
          (Function<String, String>)
              loader
                  .loadClass(RelayWithoutMicrometer.class.getName())
                  .getDeclaredConstructor()
                  .newInstance();
      assertThat(run.apply(LogicalServer.jdbcUrl())).isEqualTo("published 1");
    }
  }

  /** Run inside the class loader without Micrometer: one event through a WAL relay. */
  public static final class RelayWithoutMicrometer implements Function<String, String> {
    @Override
    public String apply(String url) {
      PGSimpleDataSource dataSource = new PGSimpleDataSource();
      dataSource.setUrl(url);
      OutboxTables tables = OutboxTables.of("wal_no_micrometer", "");
      OutboxSchema.migrate(dataSource, tables);
      RecordingPublisher publisher = new RecordingPublisher();
      Properties user = new Properties();
      user.setProperty("user", "postgres");
      DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES, tables.settings(null));
      WalRelay relay =
          WalRelay.builder()
              .sweeper(false) // no polling relay behind it in this test
              .dataSource(dataSource)
              .replicationUrl(url, user)
              .tables(tables)
              .publisher(publisher)
              .build();
      try (relay) {
        relay.start();
        Outbox outbox = Outbox.builder().tables(tables).build();
        dsl.transaction(c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", "e", "{}")));
        await().atMost(WalTestKit.WAIT).until(() -> publisher.published().size() == 1);
      } finally {
        // The server has a few slots only. The slot functions have no jOOQ model.
        await()
            .atMost(WalTestKit.WAIT)
            .until(
                () -> {
                  dsl.execute(
                      "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                          + " WHERE slot_name = ? AND NOT active",
                      relay.slotName());
                  return dsl.fetchCount(
                          DSL.table(DSL.name("pg_replication_slots")),
                          DSL.field(DSL.name("slot_name")).eq(relay.slotName()))
                      == 0;
                });
      }
      return "published " + publisher.published().size();
    }
  }

  private static URL url(String entry) {
    try {
      return Path.of(entry).toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException(entry, e);
    }
  }
}
