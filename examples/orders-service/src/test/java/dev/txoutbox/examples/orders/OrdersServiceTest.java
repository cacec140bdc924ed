package dev.txoutbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The example's main flow, end to end: real PostgreSQL, a real Kafka broker in a child JVM, the
 * relay, the consumer.
 */
class OrdersServiceTest {

  @Test
  @Timeout(240)
  void theCommandDeliversEveryOrderAndExitsWithZero() {
    try (TestDatabase db = TestDatabase.createEmpty("orders_cli", 2);
        ConsumerSchema consumer = new ConsumerSchema(db)) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

      int exitCode =
          OrdersServiceMain.commandLine(new OrdersServiceMain(out))
              .execute(
                  "--orders",
                  "2000",
                  "--writers",
                  "4",
                  "--jdbc-url",
                  TestDatabase.jdbcUrl(),
                  "--schema",
                  db.schema());

      String output = bytes.toString(StandardCharsets.UTF_8);
      System.out.print(output);
      assertThat(exitCode).as(output).isZero();
      assertThat(output)
          .containsPattern("orders written +2,000")
          .containsPattern("events received +2,000")
          .containsPattern("lost +0 ")
          .contains("consumer totals           match")
          .contains("OK: every order's event arrived");
    }
  }

  @Test
  @Timeout(300)
  void anOutageOfTheBrokerGrowsTheOutboxAndLosesNothing() throws Exception {
    try (TestDatabase db = TestDatabase.createEmpty("orders_outage", 8);
        ConsumerSchema consumer = new ConsumerSchema(db);
        KafkaBroker broker = KafkaBroker.embedded()) {
      RunOptions options =
          // Two writers, so orders keep coming for seconds after the broker stops.
          new RunOptions(
              9000, 2, true, Duration.ofSeconds(3), db.schema(), Duration.ofSeconds(120));
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

      Summary summary = OrdersExample.run(options, db.dataSource(), broker, out);

      String output = bytes.toString(StandardCharsets.UTF_8);
      System.out.print(output);
      assertThat(summary.failure()).as(output).isNull();
      assertThat(summary.written()).as(output).isEqualTo(9000);
      assertThat(summary.received()).as(output).isEqualTo(summary.written());
      assertThat(summary.lost()).as(output).isZero();
      assertThat(summary.published()).as(output).isGreaterThanOrEqualTo(9000);
      assertThat(summary.totalsMatch()).as(output).isTrue();
      assertThat(summary.pendingAtEnd()).isZero();
      assertThat(summary.deadLetters()).isZero();
      assertThat(summary.outageDown()).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
      // Orders kept being written while the broker was down: the outbox held them.
      assertThat(summary.peakPending()).as(output).isPositive();
      assertThat(output).contains("stopping the Kafka broker").contains("Kafka is back");
      assertThat(summary.ok()).isTrue();
      // Only a second record of an event in the topic is a broker duplicate; the rest of what the
      // consumer dropped were re-reads of records it had read.
      TopicCensus census = TopicCensus.of(broker.bootstrapServers(), OrdersExample.TOPIC);
      System.out.printf(
          "topic: %d records, %d distinct events; consumer: %d re-reads, %d broker duplicates%n",
          census.records(), census.distinctEvents(), summary.reReads(), summary.brokerDuplicates());
      assertThat(census.distinctEvents()).isEqualTo(9000);
      assertThat(summary.brokerDuplicates()).isEqualTo(census.records() - census.distinctEvents());
      // The consumer's marks are in its own schema, none in the producer's outbox schema.
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      assertThat(
              dsl.fetchCount(
                  DSL.table(DSL.name(options.consumerSchema(), "inbox_processed_events"))))
          .isEqualTo(9000);
      assertThat(dsl.fetchCount(DSL.table(DSL.name(db.schema(), "processed_events")))).isZero();
    }
  }

  /**
   * Drops the consumer schemas the example created next to the test schemas named {@code prefix}.
   */
  private static void dropConsumerSchemaOf(String prefix) {
    try (TestDatabase db = TestDatabase.createEmpty("cleanup", 1)) {
      DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
      for (String schema :
          dsl.select(DSL.field("nspname", String.class))
              .from("pg_namespace")
              .where(DSL.field("nspname").like(prefix + "\\_%" + RunOptions.CONSUMER_SCHEMA_SUFFIX))
              .fetch(0, String.class)) {
        db.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  @Test
  void badArgumentsExitWithTwoAndTouchNothing() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    assertThat(OrdersServiceMain.commandLine(new OrdersServiceMain(out)).execute("--orders", "0"))
        .isEqualTo(2);
    assertThat(
            OrdersServiceMain.commandLine(new OrdersServiceMain(out))
                .execute("--broker-outage", "--bootstrap-servers", "127.0.0.1:1"))
        .isEqualTo(2);
    assertThat(
            OrdersServiceMain.commandLine(new OrdersServiceMain(out))
                .execute("--schema", "Not-A-Schema"))
        .isEqualTo(2);
    assertThat(OrdersServiceMain.commandLine(new OrdersServiceMain(out)).execute("--bogus"))
        .isEqualTo(2);
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void anUnreachableDatabaseIsOneLineAndExitCodeOne() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    CommandLine command =
        OrdersServiceMain.commandLine(
            new OrdersServiceMain(new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    command.setErr(new PrintWriter(err, true));

    int exitCode = command.execute("--jdbc-url", "jdbc:postgresql://127.0.0.1:1/nowhere");

    assertThat(exitCode).isEqualTo(1);
    assertThat(err.toString())
        .startsWith("orders-service: ")
        .contains("127.0.0.1:1")
        .doesNotContain("\tat ");
    assertThat(bytes.toString(StandardCharsets.UTF_8)).doesNotContain("Summary");
  }

  /** The consumer's schema the example creates next to the test's, dropped on close. */
  private record ConsumerSchema(TestDatabase db) implements AutoCloseable {
    @Override
    public void close() {
      db.execute(
          "DROP SCHEMA IF EXISTS " + db.schema() + RunOptions.CONSUMER_SCHEMA_SUFFIX + " CASCADE");
    }
  }
}
