package dev.txoutbox.console;

import java.util.Map;

/**
 * A request the console refuses before it changes or reads anything: a status and a message for the
 * caller, shown as it is. Bad input is 400 with a message naming the parameter and the limit.
 */
final class Refusal extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final Map<String, String> headers;

  Refusal(int status, String message, Map<String, String> headers) {
    super(message, null, false, false);
    this.status = status;
    this.headers = Map.copyOf(headers);
  }

  /** 400: bad input; the message names the parameter and the limit. */
  static Refusal badRequest(String message) {
    return new Refusal(400, message, Map.of());
  }

  /** 404: no such page, outbox or event. */
  static Refusal notFound(String message) {
    return new Refusal(404, message, Map.of());
  }

  int status() {
    return status;
  }

  Map<String, String> headers() {
    return headers;
  }
}
