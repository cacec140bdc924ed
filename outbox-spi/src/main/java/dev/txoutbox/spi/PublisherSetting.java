package dev.txoutbox.spi;

import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One setting a {@link PublisherProvider} reads: its name (the key in a settings file, and the flag
 * with two dashes), its type, how {@code --help} shows it, and its default. Immutable.
 *
 * @param name lower case words joined by dashes, such as {@code send-timeout}
 * @param type how the value is written
 * @param label the placeholder {@code --help} shows for the value, such as {@code DURATION}; empty
 *     for a {@link Type#FLAG}
 * @param defaultValue the value used when the setting is not given, as text; {@code null} when the
 *     setting has no default (it is required, or its absence means something)
 * @param description one sentence for {@code --help}
 * @param secret whether the value is masked wherever settings are shown (besides the names {@link
 *     SecretMasking} always masks)
 */
public record PublisherSetting(
    String name,
    Type type,
    String label,
    @Nullable String defaultValue,
    String description,
    boolean secret) {

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*(?:-[a-z0-9]+)*");

  /** How a setting's value is written. */
  public enum Type {
    /** Any text. */
    TEXT,
    /** A duration, as {@link DurationText#parse} reads it. */
    DURATION,
    /** {@code true} or {@code false}; as a flag, given without a value. */
    FLAG,
    /**
     * Entries {@code KEY=VALUE}, repeatable as a flag ({@code --topic order=orders}), written
     * {@code name.KEY=VALUE} in a settings file ({@code topic.order=orders}).
     */
    MAP
  }

  /**
   * @throws IllegalArgumentException if {@code name} is not lower case words joined by dashes, or
   *     {@code description} is blank
   */
  public PublisherSetting {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(description, "description");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "a setting's name must be lower case words joined by dashes but was '" + name + "'");
    }
    if (description.isBlank()) {
      throw new IllegalArgumentException(
          "the description of setting '"
              + name
              + "' must not be blank but was '"
              + description
              + "'");
    }
  }

  /** A text setting without a default. */
  public static PublisherSetting text(String name, String label, String description) {
    return new PublisherSetting(name, Type.TEXT, label, null, description, false);
  }

  /** A duration setting with a default. */
  public static PublisherSetting duration(String name, String defaultValue, String description) {
    return new PublisherSetting(name, Type.DURATION, "DURATION", defaultValue, description, false);
  }

  /** A flag, false unless given. */
  public static PublisherSetting flag(String name, String description) {
    return new PublisherSetting(name, Type.FLAG, "", "false", description, false);
  }

  /** A map setting ({@code --name KEY=VALUE}, repeatable). */
  public static PublisherSetting map(String name, String label, String description) {
    return new PublisherSetting(name, Type.MAP, label, null, description, false);
  }

  /** This setting with its value masked wherever settings are shown. */
  public PublisherSetting masked() {
    return new PublisherSetting(name, type, label, defaultValue, description, true);
  }

  /** This setting with {@code value} as its default. */
  public PublisherSetting withDefault(String value) {
    return new PublisherSetting(name, type, label, value, description, secret);
  }
}
