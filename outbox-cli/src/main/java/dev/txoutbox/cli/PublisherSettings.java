package dev.txoutbox.cli;

import dev.txoutbox.spi.SecretMasking;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.TreeMap;
import picocli.CommandLine.TypeConversionException;

/**
 * A publisher's settings, named like the {@code relay} command's flags without the dashes ({@code
 * bootstrap-servers}, {@code amqp-uri}, …), with prefixed keys for maps ({@code topic.order},
 * {@code queue.order}, {@code kafka.compression.type}). Made from a properties file overridden by
 * flags. Immutable.
 */
final class PublisherSettings {

  private final Broker publisher;
  private final Map<String, String> values;

  private PublisherSettings(Broker publisher, Map<String, String> values) {
    this.publisher = publisher;
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
  }

  /**
   * The settings of {@code publisher}: {@code file}'s (when given) overridden by {@code flags}.
   *
   * @throws IllegalArgumentException if the file cannot be read, or a setting does not belong to
   *     this publisher (a typo, or another broker's flag)
   */
  static PublisherSettings of(Broker publisher, Path file, Map<String, String> flags) {
    Map<String, String> merged = new LinkedHashMap<>();
    if (file != null) {
      merged.putAll(read(file));
    }
    merged.putAll(flags);
    for (String key : merged.keySet()) {
      if (!Publishers.accepts(publisher, key)) {
        throw new IllegalArgumentException(
            "a setting of --publisher "
                + publisher
                + " must be one of "
                + Publishers.settingsOf(publisher)
                + " but was '"
                + key
                + "'");
      }
    }
    return new PublisherSettings(publisher, merged);
  }

  Broker publisher() {
    return publisher;
  }

  Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /**
   * @throws IllegalArgumentException naming the flag when the setting is missing
   */
  String require(String key) {
    String value = values.get(key);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          "--"
              + key
              + " (or "
              + key
              + " in --publisher-config) must be given for --publisher "
              + publisher
              + " but was not");
    }
    return value;
  }

  Optional<Duration> duration(String key) {
    try {
      return get(key).map(Durations::parse);
    } catch (TypeConversionException e) {
      throw new IllegalArgumentException("--" + key + " " + e.getMessage());
    }
  }

  boolean flag(String key) {
    return get(key)
        .map(
            v -> {
              String b = v.trim().toLowerCase(Locale.ROOT);
              if (!b.equals("true") && !b.equals("false")) {
                throw new IllegalArgumentException(
                    "--" + key + " must be true or false but was '" + v + "'");
              }
              return Boolean.parseBoolean(b);
            })
        .orElse(false);
  }

  /** The entries under {@code prefix} ({@code "topic."}), with the prefix removed, sorted. */
  Map<String, String> withPrefix(String prefix) {
    Map<String, String> out = new TreeMap<>();
    values.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            out.put(k.substring(prefix.length()), v);
          }
        });
    return out;
  }

  /** Every setting, secrets masked, for the log. */
  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "{", "}");
    values.forEach((k, v) -> j.add(k + "=" + SecretMasking.maskSetting(k, v)));
    return j.toString();
  }

  private static Map<String, String> read(Path file) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException e) {
      throw FlagNames.unreadable("--publisher-config", file, e);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String name : p.stringPropertyNames()) {
      out.put(name.trim(), p.getProperty(name).trim());
    }
    return out;
  }
}
