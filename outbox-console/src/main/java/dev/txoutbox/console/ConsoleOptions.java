package dev.txoutbox.console;

import dev.txoutbox.RelayOption;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The console's options that a command line also sets, each defined once: the builder checks its
 * values with them and names them as the builder does ({@code bindAddress must not be blank}), and
 * the command line checks the same values with the same rules in the words of its own flags ({@code
 * --console-bind must not be blank}), through {@link RelayOption.Spelling}. Immutable.
 */
public final class ConsoleOptions {

  /** The address the console listens on. */
  public static final RelayOption<String> BIND_ADDRESS =
      RelayOption.of(
          "bindAddress",
          "bindAddress",
          "bind",
          RelayOption.Type.TEXT,
          "ADDRESS",
          OutboxConsole.DEFAULT_BIND_ADDRESS,
          null,
          new RelayOption.Rule<>() {
            @Override
            public @Nullable String violation(
                String value, @Nullable String other, RelayOption.Spelling s) {
              return value.isBlank() ? "must not be blank" : null;
            }

            @Override
            public String describe(RelayOption.Spelling s) {
              return "not blank";
            }
          },
          "The address the console listens on; only this machine can connect by default");

  /** The port the console listens on. */
  public static final RelayOption<Integer> PORT =
      RelayOption.integer(
          "port",
          "port",
          OutboxConsole.DEFAULT_PORT,
          0,
          65_535,
          "The port the console listens on; 0 takes any free port");

  /** One host name requests may name in their {@code Host} header; the option holds several. */
  public static final RelayOption<String> ALLOWED_HOST =
      RelayOption.of(
          "allowedHosts",
          "allowedHosts",
          "allowed-host",
          RelayOption.Type.TEXT,
          "HOST",
          null,
          null,
          new RelayOption.Rule<>() {
            @Override
            public @Nullable String violation(
                String value, @Nullable String other, RelayOption.Spelling s) {
              return hostName(value) == null
                  ? "must hold host names without a port, such as console.example.org or ::1,"
                  : null;
            }

            @Override
            public String describe(RelayOption.Spelling s) {
              return "host names without a port";
            }
          },
          "A host name requests may name in their Host header, without the port");

  private ConsoleOptions() {}

  /**
   * {@code host} as the console compares it with a request's {@code Host} header (lower case, an
   * IPv6 address without brackets), or null if it is not a host name without a port.
   */
  static @Nullable String hostName(String host) {
    String name = host.strip().toLowerCase(Locale.ROOT);
    if (name.startsWith("[") && name.endsWith("]")) {
      name = name.substring(1, name.length() - 1); // [::1]
    }
    boolean port = name.indexOf(':') >= 0 && name.indexOf(':') == name.lastIndexOf(':');
    return name.isEmpty() || port || name.contains("[") || name.contains("/") ? null : name;
  }
}
