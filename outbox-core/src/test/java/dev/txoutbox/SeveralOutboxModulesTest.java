package dev.txoutbox;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.BindingAnnotation;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.name.Named;
import com.google.inject.name.Names;
import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Several {@link OutboxModule}s in one injector, told apart by binding annotations: each over its
 * own schema, each publishing to its own publisher.
 */
class SeveralOutboxModulesTest {

  @BindingAnnotation
  @Retention(RUNTIME)
  @Target({FIELD, PARAMETER, METHOD})
  @interface Shipping {}

  private static final Named BILLING = Names.named("billing");

  private static TestDatabase billingDb;
  private static TestDatabase shippingDb;

  @BeforeAll
  static void databases() {
    billingDb = TestDatabase.create("billing");
    shippingDb = TestDatabase.create("shipping");
  }

  @AfterAll
  static void drop() {
    billingDb.close();
    shippingDb.close();
  }

  @Test
  void twoQualifiedModulesOverTwoSchemasEachPublishToTheirOwnPublisher() throws Exception {
    RecordingPublisher billingPublisher = new RecordingPublisher();
    RecordingPublisher shippingPublisher = new RecordingPublisher();
    Injector injector =
        Guice.createInjector(
            // Named: the module binds the DSLContext on the billing DataSource.
            OutboxModule.builder()
                .annotatedWith(BILLING)
                .schema(billingDb.schema())
                .bindDslContext()
                .build(),
            // A marker annotation: the user binds a DSLContext carrying the wake-up, no DataSource.
            OutboxModule.builder()
                .annotatedWith(Shipping.class)
                .schema(shippingDb.schema())
                .build(),
            // And an unqualified writer-only module beside them.
            OutboxModule.builder().schema(billingDb.schema()).writerOnly().build(),
            new AbstractModule() {
              @Override
              protected void configure() {
                bind(DataSource.class).annotatedWith(BILLING).toInstance(billingDb.dataSource());
                bind(DataSource.class).toInstance(billingDb.dataSource());
                bind(Publisher.class).annotatedWith(BILLING).toInstance(billingPublisher);
                bind(Publisher.class).annotatedWith(Shipping.class).toInstance(shippingPublisher);
              }

              @Provides
              @Singleton
              @Shipping
              DSLContext shippingDsl(@Shipping Outbox outbox) {
                DSLContext dsl = DSL.using(shippingDb.dataSource(), SQLDialect.POSTGRES);
                dsl.configuration().set(outbox.transactionListener());
                return dsl;
              }
            });

    Outbox billing = injector.getInstance(Key.get(Outbox.class, BILLING));
    Outbox shipping = injector.getInstance(Key.get(Outbox.class, Shipping.class));
    OutboxRelay billingRelay = injector.getInstance(Key.get(OutboxRelay.class, BILLING));
    OutboxRelay shippingRelay = injector.getInstance(Key.get(OutboxRelay.class, Shipping.class));
    assertThat(billing).isNotSameAs(shipping).isNotSameAs(injector.getInstance(Outbox.class));
    assertThat(billingRelay.schema()).isEqualTo(billingDb.schema());
    assertThat(shippingRelay.schema()).isEqualTo(shippingDb.schema());
    assertThat(injector.getInstance(Key.get(OutboxAdmin.class, BILLING)))
        .isSameAs(billingRelay.admin());
    assertThat(injector.getInstance(Key.get(OutboxAdmin.class, Shipping.class)))
        .isSameAs(shippingRelay.admin());
    try {
      UUID invoice =
          injector
              .getInstance(Key.get(DSLContext.class, BILLING))
              .transactionResult(
                  tx -> billing.record(tx.dsl(), "invoice", "i-1", "invoice.issued", "{}"));
      UUID parcel =
          injector
              .getInstance(Key.get(DSLContext.class, Shipping.class))
              .transactionResult(
                  tx -> shipping.record(tx.dsl(), "parcel", "p-1", "parcel.sent", "{}"));
      UUID unqualified =
          injector
              .getInstance(Key.get(DSLContext.class, BILLING))
              .transactionResult(
                  tx ->
                      injector
                          .getInstance(Outbox.class)
                          .record(tx.dsl(), "invoice", "i-2", "invoice.issued", "{}"));

      assertThat(billingRelay.runOnce()).isEqualTo(2);
      assertThat(shippingRelay.runOnce()).isEqualTo(1);
      assertThat(billingPublisher.published())
          .extracting(OutboxMessage::id)
          .containsExactly(invoice, unqualified);
      assertThat(shippingPublisher.published())
          .extracting(OutboxMessage::id)
          .containsExactly(parcel);
      assertThat(injector.getInstance(OutboxAdmin.class).pendingCount()).isZero();
    } finally {
      billingRelay.close();
      shippingRelay.close();
    }
  }

  @Test
  void twoModulesWithTheSameAnnotationFailAsDuplicateBindings() {
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    OutboxModule.builder().annotatedWith(BILLING).writerOnly().build(),
                    OutboxModule.builder().annotatedWith(BILLING).writerOnly().build(),
                    new AbstractModule() {
                      @Override
                      protected void configure() {
                        bind(DataSource.class)
                            .annotatedWith(BILLING)
                            .toInstance(billingDb.dataSource());
                      }
                    }))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("Outbox annotated with @Named(\"billing\") was bound multiple times");
  }

  @Test
  void aQualifiedDslContextWithoutTheWakeUpIsRefusedNamingTheAnnotation() {
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    OutboxModule.builder().annotatedWith(Shipping.class).build(),
                    new AbstractModule() {
                      @Override
                      protected void configure() {
                        bind(DSLContext.class)
                            .annotatedWith(Shipping.class)
                            .toInstance(DSL.using(shippingDb.dataSource(), SQLDialect.POSTGRES));
                        bind(Publisher.class)
                            .annotatedWith(Shipping.class)
                            .toInstance(new RecordingPublisher());
                      }
                    }))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining(
            "was given a DSLContext annotated with @SeveralOutboxModulesTest$Shipping of your own"
                + " without the writer's after-commit wake-up")
        .hasMessageContaining(
            "@Provides @Singleton @SeveralOutboxModulesTest$Shipping DSLContext"
                + " dsl(@SeveralOutboxModulesTest$Shipping DataSource ds,"
                + " @SeveralOutboxModulesTest$Shipping Outbox outbox)");
  }
}
