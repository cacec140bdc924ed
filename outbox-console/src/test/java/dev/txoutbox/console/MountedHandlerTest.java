package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.txoutbox.testing.OutboxTestDatabase;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console mounted under a path of a JDK HTTP server the application runs, beside its own
 * handlers: every link and asset URL starts with the mount path.
 */
class MountedHandlerTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  @Test
  void mountedUnderAPathTheConsoleLinksBelowIt() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/ops/outbox", RunningConsole.builder(db).build().httpHandler());
    server.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.start();
    try {
      ConsoleClient http =
          new ConsoleClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"));

      HttpResponse<String> root = http.get("ops/outbox");
      HttpResponse<String> page = http.get("ops/outbox/o/main/events");

      assertThat(root.statusCode()).isEqualTo(302);
      assertThat(root.headers().firstValue("Location")).hasValue("/ops/outbox/o/main/");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body())
          .contains("href=\"/ops/outbox/assets/app.css\"")
          .contains("src=\"/ops/outbox/assets/app.js\"")
          .contains("data-mount=\"/ops/outbox\"");
      assertThat(http.json("ops/outbox/api/o/main/overview").get("pending").asLong()).isZero();
      assertThat(http.get("ops/outbox/assets/app.js").statusCode()).isEqualTo(200);
      assertThat(http.get("elsewhere").statusCode()).isEqualTo(204);
    } finally {
      server.stop(0);
    }
  }
}
