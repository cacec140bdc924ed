package dev.txoutbox.rabbit;

import com.rabbitmq.client.ConnectionFactory;
import dev.txoutbox.spi.SecretMasking;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;

/**
 * Reads AMQP URIs and renders broker addresses for logs and messages without their password (masked
 * by {@link SecretMasking}).
 */
final class AmqpUris {

  private AmqpUris() {}

  /**
   * A connection factory set from {@code uri}.
   *
   * @throws IllegalArgumentException if {@code uri} is not a valid AMQP URI, or its password holds
   *     a character that must be percent-encoded (a raw {@code /}, {@code #}, {@code ?} or
   *     {@code @} would make the client connect elsewhere, with the rest of the password as the
   *     virtual host); the message shows the URI masked and carries no cause, since the client's
   *     own messages may quote the password
   */
  static ConnectionFactory parse(String uri) {
    int scheme = uri.indexOf("://");
    if (scheme < 0 || !uri.substring(0, scheme).matches("(?i)amqps?")) {
      throw invalid(uri, "the scheme must be amqp or amqps");
    }
    requireEncodedUserInfo(uri);
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
      return factory;
    } catch (URISyntaxException e) {
      throw invalid(uri, e.getReason());
    } catch (GeneralSecurityException | RuntimeException e) {
      throw invalid(uri, e.getClass().getSimpleName());
    }
  }

  /**
   * The error for an invalid {@code uri}, shown masked, with {@code why} (never the client's own
   * message, which may quote the password).
   */
  private static IllegalArgumentException invalid(String uri, String why) {
    return new IllegalArgumentException(
        "uri must be an AMQP URI such as amqp://user:password@host:5672/vhost but was '"
            + SecretMasking.maskUri(uri)
            + "' ("
            + why
            + ")");
  }

  /** The user info a parser sees must be all that comes before the last {@code @}. */
  private static void requireEncodedUserInfo(String uri) {
    int authority = uri.indexOf("://") + 3;
    int at = uri.lastIndexOf('@');
    if (at < authority) {
      return;
    }
    String raw = uri.substring(authority, at);
    String parsed;
    try {
      parsed = new URI(uri).getRawUserInfo();
    } catch (URISyntaxException e) {
      parsed = null;
    }
    if (!raw.equals(parsed)) {
      throw invalid(uri, "percent-encode / # ? @ as %2F %23 %3F %40 in the user name and password");
    }
  }

  /** Where {@code factory} connects, as {@code amqp://user@host:port/vhost}, without password. */
  static String describe(ConnectionFactory factory) {
    return (factory.isSSL() ? "amqps" : "amqp")
        + "://"
        + factory.getUsername()
        + "@"
        + factory.getHost()
        + ":"
        + factory.getPort()
        + "/"
        + URLEncoder.encode(factory.getVirtualHost(), StandardCharsets.UTF_8);
  }
}
