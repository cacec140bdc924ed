package dev.txoutbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Outbox;
import dev.txoutbox.testing.OutboxTestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console mounted on the service's own HTTP server: its overview reads the service's outbox,
 * its pages carry the mount path, and it refuses actions (read-only).
 */
class OpsServerTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theMountedConsoleShowsTheServicesOutboxReadOnly() throws Exception {
    OrdersSchema.migrate(db.dataSource(), db.schema());
    CreateOrder service =
        new CreateOrder(
            DSL.using(db.dataSource(), SQLDialect.POSTGRES),
            Outbox.builder().schema(db.schema()).build(),
            db.schema());
    service.create("customer-1", 4_200);
    service.create("customer-2", 1_000);

    try (OpsServer ops = OpsServer.start(db.dataSource(), db.schema(), 0)) {
      URI console = ops.consoleUri();
      HttpResponse<String> overview = get(console.resolve("api/o/orders/overview"));
      assertThat(overview.statusCode()).as(overview.body()).isEqualTo(200);
      assertThat(overview.body()).contains("\"pending\":2", "\"dueNow\":2");

      HttpResponse<String> page = get(console.resolve("o/orders/"));
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("/outbox/assets/app.js");
      assertThat(get(console.resolve("api/session")).body()).contains("\"readOnly\":true");
      assertThat(get(console.resolve("/health")).body()).isEqualTo("ok\n");

      HttpResponse<String> purge =
          http.send(
              HttpRequest.newBuilder(console.resolve("api/o/orders/dead-letters/purge"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .header("Origin", "http://127.0.0.1:" + console.getPort())
                  .POST(HttpRequest.BodyPublishers.ofString("expected=0"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(purge.statusCode()).isIn(401, 403);
    }
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}
