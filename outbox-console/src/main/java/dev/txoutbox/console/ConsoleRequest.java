package dev.txoutbox.console;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP request as the console reads it, independent of the server that received it: how an
 * adapter for a server other than the JDK's hands a request to {@link
 * OutboxConsole#handle(ConsoleRequest)}. Immutable; the body is not copied.
 *
 * @param method the HTTP method, such as {@code GET} or {@code POST}
 * @param mountPath where the console is mounted, without a trailing {@code /}: empty at the root,
 *     {@code /ops/outbox} when mounted there; links and asset URLs start with it
 * @param path the path below the mount point, starting with {@code /} (still percent-encoded)
 * @param rawQuery the query string without {@code ?} (still percent-encoded), or empty
 * @param headers the request headers, one value each (the first), names in any case
 * @param body the request body, empty for none
 * @param remoteAddress the client's address, for the audit log
 */
public record ConsoleRequest(
    String method,
    String mountPath,
    String path,
    String rawQuery,
    Map<String, String> headers,
    byte[] body,
    String remoteAddress) {

  /**
   * @throws NullPointerException if a component is null
   */
  public ConsoleRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(mountPath, "mountPath");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(rawQuery, "rawQuery");
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(remoteAddress, "remoteAddress");
    TreeMap<String, String> lower = new TreeMap<>();
    Objects.requireNonNull(headers, "headers")
        .forEach((name, value) -> lower.putIfAbsent(name.toLowerCase(Locale.ROOT), value));
    headers = Map.copyOf(lower);
  }

  /** The value of header {@code name} (any case), or null. */
  public @Nullable String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }
}
