package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.testing.RecordingPublisher;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Every entry point that takes a schema name refuses the same names, with the same message. */
class OutboxSchemaNamesTest {

  private static final DataSource NEVER_CONNECTED = new PGSimpleDataSource();

  private static final List<String> REFUSED =
      List.of(
          "s".repeat(OutboxSchema.MAX_SCHEMA_NAME_LENGTH + 1),
          "pg_outbox",
          "information_schema",
          "user",
          "Billing",
          "");

  @Test
  void writerRelayAdminAndGuiceRefuseTheSameNames() {
    for (String schema : REFUSED) {
      String message = messageOf(() -> OutboxSchema.requireSchemaName(schema));
      assertThat(message).startsWith("schema must");
      assertThat(messageOf(() -> Outbox.builder().schema(schema).build())).isEqualTo(message);
      assertThat(
              messageOf(
                  () ->
                      OutboxRelay.builder()
                          .dataSource(NEVER_CONNECTED)
                          .publisher(new RecordingPublisher())
                          .schema(schema)
                          .build()))
          .isEqualTo(message);
      assertThat(messageOf(() -> OutboxAdmin.create(NEVER_CONNECTED, schema))).isEqualTo(message);
      assertThat(messageOf(() -> OutboxModule.builder().schema(schema).build())).isEqualTo(message);
      assertThat(messageOf(() -> OutboxSchema.migrate(NEVER_CONNECTED, schema))).isEqualTo(message);
    }
  }

  @Test
  void theLongestAcceptedNameWorksAtEveryEntryPoint() {
    String schema = "s".repeat(OutboxSchema.MAX_SCHEMA_NAME_LENGTH);
    assertThat(Outbox.builder().schema(schema).build()).isNotNull();
    assertThat(
            OutboxRelay.builder()
                .dataSource(NEVER_CONNECTED)
                .publisher(new RecordingPublisher())
                .schema(schema)
                .listenForNotifications(true)
                .build())
        .isNotNull();
    assertThat(OutboxAdmin.create(NEVER_CONNECTED, schema)).isNotNull();
    assertThat(OutboxModule.builder().schema(schema).build()).isNotNull();
  }

  private static String messageOf(Runnable call) {
    try {
      call.run();
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted");
  }
}
