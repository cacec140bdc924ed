package dev.txoutbox.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Requests to a running console, as a script or a browser would send them. */
final class ConsoleClient {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static final Pattern CSRF = Pattern.compile("\"csrfToken\":\"([^\"]+)\"");

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI base;

  ConsoleClient(URI base) {
    this.base = base;
  }

  HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(base.resolve(path)).GET());
  }

  /** POSTs {@code form}, with each pair of {@code headers} set. */
  HttpResponse<String> post(String path, String form, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return send(b);
  }

  HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return http.send(
          request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The JSON of a GET that must answer 200. */
  JsonNode json(String path) {
    HttpResponse<String> r = get(path);
    if (r.statusCode() != 200) {
      throw new AssertionError("GET " + path + " answered " + r.statusCode() + ": " + r.body());
    }
    return parse(r.body());
  }

  static JsonNode parse(String body) {
    try {
      return MAPPER.readTree(body);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + body, e);
    }
  }

  /** The CSRF token of {@code api/session}. */
  String csrfToken() {
    Matcher m = CSRF.matcher(get("api/session").body());
    if (!m.find()) {
      throw new IllegalStateException("api/session holds no csrfToken");
    }
    return m.group(1);
  }
}
