package dev.txoutbox.rabbit;

import com.rabbitmq.client.ConnectionFactory;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.regex.Pattern;

/** Reads AMQP URIs and renders broker addresses for logs and messages without their password. */
final class AmqpUris {

  private static final Pattern USER_INFO_PASSWORD =
      Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://[^:@/?#]*):[^@/?#]*@");

  private AmqpUris() {}

  /**
   * A connection factory set from {@code uri}.
   *
   * @throws IllegalArgumentException if {@code uri} is not a valid AMQP URI; the message shows the
   *     URI masked and carries no cause, since the client's own messages may quote the password
   */
  static ConnectionFactory parse(String uri) {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
      return factory;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "uri is not a valid AMQP URI: " + mask(uri) + " (" + e.getReason() + ")");
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException(
          "uri is not a valid AMQP URI: " + mask(uri) + " (" + e.getClass().getSimpleName() + ")");
    }
  }

  /** {@code uri} with any password in its user info replaced by {@code ****}. */
  static String mask(String uri) {
    return USER_INFO_PASSWORD.matcher(uri).replaceFirst("$1:****@");
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
