package dev.txoutbox.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The relay's HTTP endpoint as a scraper sees it: its port from the log, GET requests. */
final class MetricsEndpoint {

  private static final Pattern SERVING =
      Pattern.compile("/health on http://127\\.0\\.0\\.1:(\\d+)");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private MetricsEndpoint() {}

  /** The port in the relay's "serving /metrics and /health" log line, or 0 before it. */
  static int port(String log) {
    Matcher m = SERVING.matcher(log);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
