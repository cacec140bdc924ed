package dev.txoutbox.cli;

import dev.txoutbox.Backoff;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptions;
import dev.txoutbox.RetryPolicy;
import dev.txoutbox.spi.Printable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The retry flags of {@code relay} and {@code status}: the default policy ({@code --max-attempts},
 * the backoff, {@code --max-age}), each flag made from its {@link RelayOptions} definition, and the
 * policies of a {@code --retry-config} file (the default policy's {@code retry.default.*} keys, and
 * per type). The relay retries by them; {@code status} given the same flags shows the policies they
 * make. Each value is checked before anything connects, its error naming the flag or the file's
 * key. Reads them from a parse result; immutable.
 */
final class RetryFlags {

  /** The default policy's options, in the order {@code --help} lists them. */
  static final List<RelayOption<?>> OPTIONS =
      List.of(
          RelayOptions.MAX_ATTEMPTS,
          RelayOptions.BACKOFF_INITIAL,
          RelayOptions.BACKOFF_MAX,
          RelayOptions.BACKOFF_MULTIPLIER,
          RelayOptions.BACKOFF_JITTER,
          RelayOptions.MAX_AGE);

  /** The flag of the publisher's settings file, which may hold the retry keys instead. */
  static final String PUBLISHER_CONFIG = "--publisher-config";

  /** The retry keys of a file, checked, and the flag and file they were read from, for errors. */
  private record Source(String flag, Path path, RetryConfigFile file) {

    static Source of(String flag, Path path, Map<String, String> keys) {
      try {
        return new Source(flag, path, RetryConfigFile.parse(keys));
      } catch (IllegalArgumentException e) {
        throw error(flag, path, e);
      }
    }

    /** {@code e}, prefixed by the flag and the file (if any) that set the value at fault. */
    static IllegalArgumentException error(@Nullable Source source, IllegalArgumentException e) {
      return source == null ? e : error(source.flag, source.path, e);
    }

    private static IllegalArgumentException error(
        String flag, Path path, IllegalArgumentException e) {
      return new IllegalArgumentException(flag + " " + path + ": " + e.getMessage(), e);
    }
  }

  private final ParseResult parsed;
  private final @Nullable Path publisherConfig;

  private RetryFlags(ParseResult parsed, @Nullable Path publisherConfig) {
    this.parsed = parsed;
    this.publisherConfig = publisherConfig;
  }

  /** The retry flags given in {@code parsed}. */
  static RetryFlags of(ParseResult parsed) {
    return new RetryFlags(parsed, null);
  }

  /**
   * The retry flags given in {@code parsed}, and the {@code retry.*} keys of {@code
   * publisherConfig} (the {@code --publisher-config} file, or null): the policies may be kept in
   * either file, but not in both.
   */
  static RetryFlags of(ParseResult parsed, @Nullable Path publisherConfig) {
    return new RetryFlags(parsed, publisherConfig);
  }

  /** Whether {@code key} of a {@code --publisher-config} file belongs to the retry policies. */
  static boolean isRetryKey(String key) {
    return key.startsWith(RETRY);
  }

  private static final String RETRY = "retry.";

  /** Adds the retry flags to {@code spec}, as a section of {@code --help} under {@code heading}. */
  static void install(CommandSpec spec, String heading, int order) {
    List<OptionSpec> options = new java.util.ArrayList<>();
    for (RelayOption<?> o : OPTIONS) {
      options.add(OptionFlags.option(o, null));
    }
    options.add(
        OptionSpec.builder(RetryConfigFile.FLAG)
            .paramLabel("FILE")
            .type(Path.class)
            .description(
                "A properties file of retry policies: retry.default.SETTING=VALUE for the default"
                    + " policy (its flags win over it), retry.event-type.TYPE.SETTING=VALUE and"
                    + " retry.aggregate-type.TYPE.SETTING=VALUE per type; SETTING is the key's"
                    + " last part, one of "
                    + RetryConfigFile.SETTINGS_TEXT
                    + "; a setting a type does not give is the default policy's."
                    + " An event type's policy wins over its aggregate type's.")
            .build());
    OptionFlags.addGroup(spec, heading, order, options);
  }

  /** Whether any retry flag, or any retry key of the publisher's settings file, was given. */
  boolean given() {
    return source() != null
        || OPTIONS.stream().anyMatch(o -> parsed.hasMatchedOption(OptionFlags.flag(o)));
  }

  /**
   * The file the retry keys come from: the {@code --retry-config} file, else the {@code retry.*}
   * keys of the {@code --publisher-config} file, else null.
   *
   * @throws IllegalArgumentException if both files hold retry keys, naming both and a key
   */
  private @Nullable Source source() {
    Path retryConfig = parsed.matchedOptionValue(RetryConfigFile.FLAG, null);
    Map<String, String> inPublisherConfig = new LinkedHashMap<>();
    if (publisherConfig != null) {
      PropertiesFile.read(PUBLISHER_CONFIG, publisherConfig)
          .forEach(
              (k, v) -> {
                if (isRetryKey(k)) {
                  inPublisherConfig.put(k, v);
                }
              });
    }
    if (retryConfig != null && !inPublisherConfig.isEmpty()) {
      throw new IllegalArgumentException(
          "retry policies must be given in one file, but both "
              + RetryConfigFile.FLAG
              + " "
              + retryConfig
              + " and "
              + PUBLISHER_CONFIG
              + " "
              + publisherConfig
              + " hold them ('"
              + Printable.of(inPublisherConfig.keySet().iterator().next())
              + "')");
    }
    if (retryConfig != null) {
      return Source.of(
          RetryConfigFile.FLAG,
          retryConfig,
          PropertiesFile.read(RetryConfigFile.FLAG, retryConfig));
    }
    return publisherConfig == null || inPublisherConfig.isEmpty()
        ? null
        : Source.of(PUBLISHER_CONFIG, publisherConfig, inPublisherConfig);
  }

  /**
   * Sets the default policy on {@code b} ({@code maxAttempts}, {@code backoff}, {@code maxAge}):
   * each setting its flag's, else the file's {@code retry.default.*} key's, else the option's
   * default; then the file's policies per type.
   *
   * @throws IllegalArgumentException naming the flag or the file's key, and the limit
   */
  void applyTo(RelayConfig.Builder b) {
    Source source = source();
    // What the file's default keys set, as long as no flag overrides them: named by their key.
    Map<RelayOption<?>, String> fromFile = new HashMap<>();
    int attempts =
        value(
            RelayOptions.MAX_ATTEMPTS,
            source,
            RetryConfigFile.Setting.MAX_ATTEMPTS,
            RetryConfigFile::attempts,
            fromFile);
    Duration initial =
        value(
            RelayOptions.BACKOFF_INITIAL,
            source,
            RetryConfigFile.Setting.BACKOFF_INITIAL,
            RetryConfigFile::duration,
            fromFile);
    Duration max =
        value(
            RelayOptions.BACKOFF_MAX,
            source,
            RetryConfigFile.Setting.BACKOFF_MAX,
            RetryConfigFile::duration,
            fromFile);
    double multiplier =
        value(
            RelayOptions.BACKOFF_MULTIPLIER,
            source,
            RetryConfigFile.Setting.BACKOFF_MULTIPLIER,
            RetryConfigFile::number,
            fromFile);
    double jitter =
        value(
            RelayOptions.BACKOFF_JITTER,
            source,
            RetryConfigFile.Setting.BACKOFF_JITTER,
            RetryConfigFile::number,
            fromFile);
    Duration maxAge =
        value(
            RelayOptions.MAX_AGE,
            source,
            RetryConfigFile.Setting.MAX_AGE,
            RetryConfigFile::maxAge,
            fromFile);
    RelayOption.Spelling spelling = OptionFlags.named(fromFile);
    Backoff backoff;
    try {
      RelayOptions.MAX_ATTEMPTS.check(attempts, null, spelling);
      backoff = RetryConfigFile.backoff(initial, max, multiplier, jitter, spelling);
      if (maxAge != null) {
        RelayOptions.MAX_AGE.check(maxAge, null, spelling);
      }
    } catch (IllegalArgumentException e) {
      throw fromFile.isEmpty() ? e : Source.error(source, e);
    }
    b.maxAttempts(attempts).backoff(backoff).maxAge(maxAge);
    if (source != null) {
      RetryPolicy base = RetryPolicy.of(attempts, backoff);
      Function<RetryConfigFile.Setting, String> inherited =
          s -> fromFile.getOrDefault(s.option, OptionFlags.flag(s.option));
      try {
        source.file().policies(maxAge == null ? base : base.withMaxAge(maxAge), inherited).apply(b);
      } catch (IllegalArgumentException e) {
        throw Source.error(source, e);
      }
    }
  }

  /**
   * The value of {@code option}: its flag's, else that of the file's default key for {@code
   * setting} (recorded in {@code fromFile}), else its default.
   */
  private <T> T value(
      RelayOption<T> option,
      @Nullable Source source,
      RetryConfigFile.Setting setting,
      Function<RetryConfigFile.Entry, T> read,
      Map<RelayOption<?>, String> fromFile) {
    T flag = OptionFlags.given(parsed, option);
    if (flag != null) {
      return flag;
    }
    RetryConfigFile.Entry entry = source == null ? null : source.file().defaultSetting(setting);
    if (entry != null) {
      T value;
      try {
        value = read.apply(entry);
      } catch (IllegalArgumentException e) {
        throw Source.error(source, e);
      }
      fromFile.put(option, entry.key());
      return value;
    }
    return option.defaultValue();
  }
}
