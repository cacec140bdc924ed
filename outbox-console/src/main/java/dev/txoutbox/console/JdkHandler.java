package dev.txoutbox.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The console on the JDK's HTTP server: maps an exchange to a {@link ConsoleRequest} (the path
 * below the context it is mounted on) and the answer back. A body longer than {@link
 * Params#MAX_LENGTH} bytes is refused with 413 unread. Thread-safe.
 */
final class JdkHandler implements HttpHandler {

  private final OutboxConsole console;

  JdkHandler(OutboxConsole console) {
    this.console = console;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String mount = exchange.getHttpContext().getPath();
      if (mount.endsWith("/")) {
        mount = mount.substring(0, mount.length() - 1);
      }
      String path = exchange.getRequestURI().getRawPath();
      path = path.startsWith(mount) ? path.substring(mount.length()) : path;
      if (path.isEmpty()) {
        path = "/";
      }
      Map<String, String> headers = new HashMap<>();
      exchange
          .getRequestHeaders()
          .forEach((name, values) -> headers.put(name, values.isEmpty() ? "" : values.get(0)));
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readNBytes(Params.MAX_LENGTH + 1);
      }
      ConsoleResponse response;
      if (body.length > Params.MAX_LENGTH) {
        response =
            ConsoleResponse.error(
                413, "the body must be at most " + Params.MAX_LENGTH + " bytes but was longer");
      } else {
        String query = exchange.getRequestURI().getRawQuery();
        InetSocketAddress remote = exchange.getRemoteAddress();
        response =
            console.handle(
                new ConsoleRequest(
                    exchange.getRequestMethod(),
                    mount,
                    path,
                    query == null ? "" : query,
                    headers,
                    body,
                    remote == null ? "unknown" : remote.getAddress().getHostAddress()));
      }
      response
          .headers()
          .forEach((name, value) -> exchange.getResponseHeaders().put(name, List.of(value)));
      boolean noBody = exchange.getRequestMethod().equals("HEAD") || response.body().length == 0;
      exchange.sendResponseHeaders(response.status(), noBody ? -1 : response.body().length);
      if (!noBody) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(response.body());
        }
      }
    }
  }
}
