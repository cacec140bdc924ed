package dev.txoutbox.itmodulepath;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.inbox.OutboxInbox;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSettings;
import dev.txoutbox.wal.WalRelay;
import dev.txoutbox.wal.WalSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Uses every txoutbox module from the module path and prints one line per step, then {@value
 * #DONE}. Arguments: the JDBC URL and a schema that does not exist yet; the user and password come
 * from {@code OUTBOX_TEST_DB_USER} and {@code OUTBOX_TEST_DB_PASSWORD} (default {@code postgres}
 * and none). Exits with a stack trace on the first failure.
 */
public final class ModulePathApp {

  /** The last line, printed only when every step worked. */
  public static final String DONE = "module path: done";

  private ModulePathApp() {}

  /**
   * Runs the steps.
   *
   * @param args the JDBC URL and the schema
   * @throws Exception on the first failing step
   */
  public static void main(String[] args) throws Exception {
    DataSource dataSource = dataSource(args[0]);
    String schema = args[1];

    System.out.println("modules: " + describe(Outbox.class) + ", " + describe(ModulePathApp.class));
    System.out.println(
        "migrated: outbox "
            + OutboxSchema.migrate(dataSource, schema)
            + ", inbox "
            + OutboxInbox.migrate(dataSource, schema));

    List<String> providers = new ArrayList<>();
    for (PublisherProvider provider : ServiceLoader.load(PublisherProvider.class)) {
      PublisherSettings settings =
          PublisherSettings.of(provider, "txoutbox-modulepath", settings(provider.name()));
      try (Publisher publisher = provider.create(settings);
          OutboxRelay relay = relay(dataSource, schema, publisher)) {
        providers.add(
            provider.name() + "=" + publisher.getClass().getSimpleName() + " in " + relay.schema());
      }
    }
    providers.sort(null);
    System.out.println("providers: " + providers);

    Outbox outbox = Outbox.builder().schema(schema).build();
    DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
    UUID id =
        dsl.transactionResult(
            tx ->
                outbox.record(
                    tx.dsl(), OutboxEvent.of("order", "42", "OrderPlaced", "{\"total\":42}")));
    CollectingPublisher publisher = new CollectingPublisher();
    try (OutboxRelay relay = relay(dataSource, schema, publisher)) {
      System.out.println(
          "relayed: "
              + relay.runOnce()
              + ", received "
              + publisher.ids().equals(List.of(id))
              + ", pending "
              + OutboxAdmin.create(dataSource, schema).pendingCount());
    }

    OutboxInbox inbox = OutboxInbox.builder().schema(schema).build();
    boolean first = dsl.transactionResult(tx -> inbox.firstTime(tx.dsl(), "modulepath", id));
    boolean again = dsl.transactionResult(tx -> inbox.firstTime(tx.dsl(), "modulepath", id));
    System.out.println("inbox: first " + first + ", again " + again);

    // The WAL relay built (its start needs wal_level=logical, which the shared server lacks) and
    // its slot looked up: the driver's replication API and the catalog queries from the module
    // path.
    Properties credentials = new Properties();
    credentials.setProperty(
        "user", System.getenv().getOrDefault("OUTBOX_TEST_DB_USER", "postgres"));
    try (WalRelay wal =
        WalRelay.builder()
            .dataSource(dataSource)
            .replicationUrl(args[0], credentials)
            .schema(schema)
            .publisher(publisher)
            .build()) {
      System.out.println(
          "wal: slot "
              + wal.slotName()
              + ", default "
              + wal.slotName().equals(WalSlot.defaultName(OutboxTables.of(schema, "")))
              + ", found "
              + WalSlot.find(dataSource, wal.slotName(), wal.publicationName()).isPresent());
    }

    Injector injector =
        Guice.createInjector(
            OutboxModule.builder().schema(schema).build(),
            binder -> {
              binder.bind(DataSource.class).toInstance(dataSource);
              binder.bind(Publisher.class).toInstance(publisher);
            });
    try (OutboxRelay relay = injector.getInstance(OutboxRelay.class)) {
      System.out.println(
          "guice: relay in "
              + relay.schema()
              + ", admin pending "
              + injector.getInstance(OutboxAdmin.class).pendingCount());
    }
    System.out.println(DONE);
  }

  private static OutboxRelay relay(DataSource dataSource, String schema, Publisher publisher) {
    return OutboxRelay.builder().dataSource(dataSource).schema(schema).publisher(publisher).build();
  }

  /** Settings that build each plugin's publisher without reaching a broker. */
  private static Map<String, String> settings(String provider) {
    return switch (provider) {
      case "kafka" -> Map.of("bootstrap-servers", "127.0.0.1:9");
      case "sqs" ->
          Map.of(
              "sqs-region", "eu-west-1",
              "sqs-endpoint", "http://127.0.0.1:9",
              "queue.order", "orders");
      case "rabbit" -> Map.of("amqp-uri", "amqp://guest:guest@127.0.0.1:5672", "exchange", "");
      default -> throw new IllegalStateException("unexpected provider " + provider);
    };
  }

  private static String describe(Class<?> type) {
    Module module = type.getModule();
    if (!module.isNamed()) {
      return type.getSimpleName() + " in the unnamed module";
    }
    return module.getName() + (module.getDescriptor().isAutomatic() ? " (automatic)" : "");
  }

  private static DataSource dataSource(String url) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(url);
    dataSource.setUser(System.getenv().getOrDefault("OUTBOX_TEST_DB_USER", "postgres"));
    dataSource.setPassword(System.getenv().getOrDefault("OUTBOX_TEST_DB_PASSWORD", ""));
    return dataSource;
  }
}
