package dev.txoutbox.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's HTTP endpoint, on the JDK's own server: {@code GET /metrics} in Prometheus text
 * format, {@code GET /health} 200 or 503, and any JSON documents a command adds. Thread-safe.
 */
final class MetricsServer implements AutoCloseable {

  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  static final String JSON = "application/json; charset=utf-8";

  private static final Logger log = LoggerFactory.getLogger(MetricsServer.class);

  private final HttpServer server;
  private final ExecutorService executor;

  private MetricsServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Listens on {@code host:port} (port 0: any free port).
   *
   * @throws CliException if the address cannot be bound
   */
  static MetricsServer start(
      String host, int port, PrometheusMeterRegistry registry, HealthCheck health) {
    return start(host, port, registry, health, Map.of());
  }

  /**
   * Listens on {@code host:port} (port 0: any free port), serving besides {@code /metrics} and
   * {@code /health} each path of {@code json}, a JSON document made per request (such as {@code
   * fleet run}'s {@code /fleet}).
   *
   * @throws CliException if the address cannot be bound
   */
  static MetricsServer start(
      String host,
      int port,
      PrometheusMeterRegistry registry,
      HealthCheck health,
      Map<String, Supplier<String>> json) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 16);
    } catch (IOException e) {
      throw new CliException(
          "cannot serve metrics on "
              + host
              + ":"
              + port
              + " (--metrics-host, --metrics-port): "
              + e.getMessage(),
          e);
    }
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "txoutbox-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext(
        "/metrics",
        exchange -> respond(exchange, () -> new Response(200, PROMETHEUS_TEXT, registry.scrape())));
    server.createContext(
        "/health",
        exchange ->
            respond(
                exchange,
                () -> {
                  HealthCheck.Result r = health.check();
                  return new Response(
                      r.healthy() ? 200 : 503, "text/plain; charset=utf-8", r.detail() + "\n");
                }));
    json.forEach(
        (path, document) ->
            server.createContext(
                path,
                exchange ->
                    respond(exchange, () -> new Response(200, JSON, document.get() + "\n"))));
    server.start();
    MetricsServer started = new MetricsServer(server, executor);
    log.info(
        "serving /metrics{} and /health on http://{}:{}",
        json.keySet().stream().sorted().map(p -> ", " + p).collect(Collectors.joining()),
        host,
        started.port());
    return started;
  }

  /** The port listened on. */
  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private record Response(int status, String contentType, String body) {}

  private static void respond(HttpExchange exchange, Supplier<Response> handler)
      throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET")
          && !exchange.getRequestMethod().equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      if (!exchange.getRequestURI().getPath().equals(exchange.getHttpContext().getPath())) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      Response response;
      try {
        response = handler.get();
      } catch (RuntimeException e) {
        log.warn("{} failed", exchange.getRequestURI().getPath(), e);
        response =
            new Response(
                500,
                "text/plain; charset=utf-8",
                "error: " + OutputMasking.mask(e.toString()) + "\n");
      }
      byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", response.contentType());
      exchange.getResponseHeaders().set("Cache-Control", "no-store");
      if (exchange.getRequestMethod().equals("HEAD")) {
        exchange.sendResponseHeaders(response.status(), -1);
        return;
      }
      exchange.sendResponseHeaders(response.status(), bytes.length);
      try (OutputStream os = exchange.getResponseBody()) {
        os.write(bytes);
      }
    }
  }
}
