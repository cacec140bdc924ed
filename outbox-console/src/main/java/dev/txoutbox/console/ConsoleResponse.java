package dev.txoutbox.console;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The console's answer to a {@link ConsoleRequest}: a status, headers (the content type and the
 * security headers among them) and a body, for an adapter to write to its server's response.
 * Immutable; the body is not copied.
 *
 * @param status the HTTP status code
 * @param headers response headers to set, in order
 * @param body the body, empty for none
 */
public record ConsoleResponse(int status, Map<String, String> headers, byte[] body) {

  /** The policy every answer carries: only the console's own scripts, styles and origin. */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
          + " connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

  /**
   * @throws NullPointerException if a component is null
   */
  public ConsoleResponse {
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(body, "body");
    headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  /** The body as UTF-8 text. */
  public String text() {
    return new String(body, StandardCharsets.UTF_8);
  }

  static ConsoleResponse of(int status, String contentType, String body) {
    return of(status, contentType, body.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  static ConsoleResponse of(
      int status, String contentType, byte[] body, Map<String, String> extraHeaders) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Type", contentType);
    h.put("Cache-Control", "no-store");
    h.put("X-Content-Type-Options", "nosniff");
    h.put("X-Frame-Options", "DENY");
    h.put("Referrer-Policy", "no-referrer");
    h.put("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    h.putAll(extraHeaders);
    return new ConsoleResponse(status, h, body);
  }

  static ConsoleResponse json(int status, Object value) {
    return of(status, "application/json; charset=utf-8", Json.write(value));
  }

  /** An error as JSON: {@code {"error": message}}. */
  static ConsoleResponse error(int status, String message) {
    return json(status, Map.of("error", message));
  }
}
