package dev.txoutbox.testing;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EmbeddedFallbackTest {

  @RegisterExtension
  static final OutboxTestDatabase db = OutboxTestDatabase.builder().embedded().build();

  @Test
  void theForcedEmbeddedServerHoldsAMigratedSchema() {
    assertThat(db.source()).isEqualTo(OutboxTestDatabase.Source.EMBEDDED);
    assertThat(db.jdbcUrl()).doesNotContain("127.0.0.1:5432");
    assertThat(db.dsl().fetchCount(OUTBOX_EVENTS)).isZero();
    System.out.println(
        "[kit timing] embedded: schema ready in "
            + db.readyIn().toMillis()
            + " ms (server start included)");
  }

  @Test
  void thePropertyOrVariableForcesTheEmbeddedServerAndWinsOverAUrl() {
    Map<String, String> none = Map.of();
    Map<String, String> forced = Map.of("txoutbox.test.embedded", "true");
    Map<String, String> url = Map.of("txoutbox.test.jdbc-url", "jdbc:postgresql://db:5432/t");
    Map<String, String> variables =
        Map.of("TXOUTBOX_TEST_EMBEDDED", "true", "TXOUTBOX_TEST_JDBC_URL", "jdbc:postgresql://x/y");

    assertThat(TestServer.wanted(none::get, none::get))
        .isEqualTo(TestServer.Wanted.LOCAL_THEN_EMBEDDED);
    assertThat(TestServer.wanted(url::get, none::get)).isEqualTo(TestServer.Wanted.CONFIGURED);
    assertThat(TestServer.wanted(forced::get, url::get)).isEqualTo(TestServer.Wanted.EMBEDDED);
    assertThat(TestServer.wanted(none::get, variables::get)).isEqualTo(TestServer.Wanted.EMBEDDED);
    assertThat(TestServer.wanted(Map.of("txoutbox.test.embedded", "false")::get, variables::get))
        .as("the property wins over the variable")
        .isEqualTo(TestServer.Wanted.CONFIGURED);
  }
}
