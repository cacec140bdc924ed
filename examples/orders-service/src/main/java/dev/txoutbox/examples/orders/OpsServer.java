package dev.txoutbox.examples.orders;

import com.sun.net.httpserver.HttpServer;
import dev.txoutbox.console.OutboxConsole;
import dev.txoutbox.schema.OutboxTables;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;

/**
 * The service's own operations HTTP server (the JDK's {@code HttpServer}) on 127.0.0.1, with a
 * {@code /health} endpoint of its own and the outbox console mounted under {@value #CONSOLE_PATH}:
 * the way to embed the console in a service that already serves HTTP. Read-only: the console is
 * built without an admin credential, so requeue and purge are refused. Any other server (Jetty,
 * Undertow, a servlet container) mounts it the same way through {@link
 * OutboxConsole#handle(dev.txoutbox.console.ConsoleRequest)}, mapping its request and response.
 *
 * <p>This class is thread-safe.
 */
public final class OpsServer implements AutoCloseable {

  /** Where the console is mounted: {@code /outbox}. */
  public static final String CONSOLE_PATH = "/outbox";

  /** The console's name of the example's outbox, in its URLs: {@code orders}. */
  public static final String OUTBOX_NAME = "orders";

  private final HttpServer server;
  private final ExecutorService executor;
  private final OutboxConsole console;

  private OpsServer(HttpServer server, ExecutorService executor, OutboxConsole console) {
    this.server = server;
    this.executor = executor;
    this.console = console;
  }

  /**
   * Serves {@code /health} and the read-only console of the outbox in {@code schema} on
   * 127.0.0.1:{@code port} (0 takes a free port).
   *
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static OpsServer start(DataSource dataSource, String schema, int port) {
    OutboxConsole console =
        OutboxConsole.builder().outbox(OUTBOX_NAME, dataSource, OutboxTables.in(schema)).build();
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve on 127.0.0.1:" + port + " (--ops-port)", e);
    }
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "orders-ops-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext(
        "/health",
        exchange -> {
          byte[] ok = "ok\n".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, ok.length);
          try (OutputStream body = exchange.getResponseBody()) {
            body.write(ok);
          }
        });
    server.createContext(CONSOLE_PATH, console.httpHandler());
    server.start();
    return new OpsServer(server, executor, console);
  }

  /** The console's address: {@code http://127.0.0.1:<port>/outbox/}. */
  public URI consoleUri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + CONSOLE_PATH + "/");
  }

  @Override
  public void close() {
    server.stop(1);
    executor.shutdownNow();
    console.close();
  }
}
