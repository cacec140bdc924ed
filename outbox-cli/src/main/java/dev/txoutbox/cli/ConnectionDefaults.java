package dev.txoutbox.cli;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.postgresql.Driver;

/**
 * The pgjdbc connection properties the CLI sets on its own connections where the user's JDBC URL
 * does not set them (the URL always wins, {@code socketTimeout=0} included), so that a primary that
 * goes silent (packets dropped, not refused) costs a bounded wait instead of a connection blocked
 * in a read for as long as the kernel keeps retrying, or for ever behind a proxy that still answers
 * TCP.
 *
 * <ul>
 *   <li>Every connection: {@code connectTimeout} {@value #CONNECT_TIMEOUT_SECONDS} s for the TCP
 *       connect to each host, and {@code tcpKeepAlive=true}, so the kernel probes an idle
 *       connection.
 *   <li>The relay's (its pool and the WAL relay's replication connection): {@code socketTimeout}
 *       {@value #RELAY_SOCKET_TIMEOUT_SECONDS} s, which bounds every read, the login's too. The
 *       relay's statements are short by design (a batch of at most 10,000 rows; the WAL relay's
 *       claims wait at most 5 s for a lock; {@code /health} 2 s), so a read that long means the
 *       server is gone; the connection then fails, and the relay retries on a new one.
 *   <li>The other commands' ({@code migrate}, {@code cleanup}, {@code status}, the console, and the
 *       relay's start-up probe): {@code loginTimeout} {@value #LOGIN_TIMEOUT_SECONDS} s bounds
 *       connecting and logging in, but no {@code socketTimeout}, since their statements may rightly
 *       run long (an index built concurrently, a large cleanup).
 * </ul>
 *
 * <p>Values are in pgjdbc's units (seconds), as a user writes them in the URL. This type is
 * thread-safe: it has no state.
 */
final class ConnectionDefaults {

  /** {@code connectTimeout} unless the URL says: seconds to open a TCP connection to one host. */
  static final int CONNECT_TIMEOUT_SECONDS = 10;

  /** The relay's {@code socketTimeout} unless the URL says: seconds any read may wait. */
  static final int RELAY_SOCKET_TIMEOUT_SECONDS = 60;

  /**
   * The other commands' {@code loginTimeout} unless the URL says: seconds to connect and log in.
   */
  static final int LOGIN_TIMEOUT_SECONDS = 30;

  /** Whose connection. */
  enum Use {
    /** The relay's pool and its replication connection: long-lived, short statements. */
    RELAY,
    /** A one-shot command's, and the relay's start-up probe: statements of any length. */
    COMMAND
  }

  private ConnectionDefaults() {}

  /** The relay's socket timeout, for messages. */
  static Duration relaySocketTimeout() {
    return Duration.ofSeconds(RELAY_SOCKET_TIMEOUT_SECONDS);
  }

  /**
   * The properties to add to a connection to {@code jdbcUrl} for {@code use}: the defaults the URL
   * does not set, in a stable order.
   */
  static Map<String, String> missingFrom(String jdbcUrl, Use use) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("connectTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
    switch (use) {
      case RELAY -> all.put("socketTimeout", String.valueOf(RELAY_SOCKET_TIMEOUT_SECONDS));
      case COMMAND -> all.put("loginTimeout", String.valueOf(LOGIN_TIMEOUT_SECONDS));
    }
    all.put("tcpKeepAlive", "true");
    Properties inUrl = Driver.parseURL(jdbcUrl, null);
    if (inUrl != null) {
      all.keySet().removeIf(inUrl::containsKey);
    }
    return all;
  }

  /** {@code properties} as URL parameters ({@code a=1&b=2}), or {@code none}. */
  static String describe(Map<String, String> properties) {
    return properties.isEmpty()
        ? "none"
        : properties.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining("&"));
  }
}
