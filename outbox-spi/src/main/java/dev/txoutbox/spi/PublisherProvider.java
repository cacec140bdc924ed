package dev.txoutbox.spi;

import java.util.List;

/**
 * A broker plugin as tools find it with {@link java.util.ServiceLoader}: the standalone relay's
 * {@code --publisher NAME} and its flags, and the benchmarks' targets, come from the providers on
 * the class path, so a new broker is one module with one entry in {@code
 * META-INF/services/dev.txoutbox.spi.PublisherProvider}. Applications that build their publisher in
 * code use the plugin's builder and never need this.
 *
 * <p>Implementations are stateless and have a public no-argument constructor.
 */
public interface PublisherProvider {

  /**
   * The broker's name on the command line, such as {@code kafka}: lower case letters and digits,
   * unique among the providers.
   */
  String name();

  /**
   * Every setting {@link #create} reads, in the order {@code --help} shows them. A setting's name
   * is its key in a settings file and, with two dashes, its flag; two providers may both declare a
   * setting of the same name (such as {@code send-timeout}) only with the same {@linkplain
   * PublisherSetting#type() type}.
   */
  List<PublisherSetting> settings();

  /**
   * A new publisher configured by {@code settings}, which the caller closes.
   *
   * @throws IllegalArgumentException naming the setting when one is missing or invalid
   */
  Publisher create(PublisherSettings settings);
}
