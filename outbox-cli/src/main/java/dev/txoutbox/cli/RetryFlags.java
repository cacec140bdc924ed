package dev.txoutbox.cli;

import dev.txoutbox.Backoff;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RetryPolicy;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The retry flags of {@code relay} and {@code status}: the default policy ({@code --max-attempts},
 * the backoff, {@code --max-age}) and the per-type policies of a {@code --retry-config} file. The
 * relay retries by them; {@code status} given the same flags shows the policies they make. Each
 * value is checked before anything connects, its error naming the flag or the file's key.
 */
final class RetryFlags {

  @Option(
      names = "--max-attempts",
      paramLabel = "N",
      description = "Publish attempts before an event is a dead letter, 1 to 1000. Default: 10.")
  Integer maxAttempts;

  @Option(
      names = "--backoff-initial",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "Retry delay after the first failure. Default: 1s.")
  Duration backoffInitial;

  @Option(
      names = "--backoff-max",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "Longest retry delay, at least --backoff-initial. Default: 5m.")
  Duration backoffMax;

  @Option(
      names = "--backoff-multiplier",
      paramLabel = "X",
      description = "Growth of the retry delay per failure, at least 1. Default: 2.")
  Double backoffMultiplier;

  @Option(
      names = "--backoff-jitter",
      paramLabel = "X",
      description =
          "Random share of each retry delay, 0 to 1 (0.2: each delay is 80% to 100% of its"
              + " nominal value). Default: 0.2.")
  Double backoffJitter;

  @Option(
      names = "--max-age",
      paramLabel = "DURATION",
      converter = Durations.class,
      description =
          "An event still failing once this old (from its creation) is a dead letter at that"
              + " failure, whatever attempts it has left. Default: no age limit.")
  Duration maxAge;

  @Option(
      names = "--retry-config",
      paramLabel = "FILE",
      description =
          "A properties file of retry policies per event type or aggregate type:"
              + " retry.event-type.TYPE.SETTING=VALUE, retry.aggregate-type.TYPE.SETTING=VALUE;"
              + " SETTING is the key's last part, one of "
              + RetryConfigFile.SETTINGS_TEXT
              + "; a setting not given is the default policy's."
              + " An event type's policy wins over its aggregate type's.")
  Path retryConfig;

  /** Whether any retry flag was given. */
  boolean given() {
    return maxAttempts != null
        || backoffInitial != null
        || backoffMax != null
        || backoffMultiplier != null
        || backoffJitter != null
        || maxAge != null
        || retryConfig != null;
  }

  /**
   * Sets the default policy of the flags on {@code b} ({@code maxAttempts}, {@code backoff}, {@code
   * maxAge}), and the policies of the {@code --retry-config} file.
   *
   * @throws IllegalArgumentException naming the flag or the file's key, and the limit
   */
  void applyTo(RelayConfig.Builder b) {
    int attempts = maxAttempts != null ? maxAttempts : RelayConfig.DEFAULT_MAX_ATTEMPTS;
    if (attempts < 1 || attempts > RetryPolicy.MAX_ATTEMPTS_LIMIT) {
      throw new IllegalArgumentException(
          "--max-attempts must be between 1 and "
              + RetryPolicy.MAX_ATTEMPTS_LIMIT
              + " but was "
              + attempts);
    }
    Backoff d = Backoff.defaults();
    Backoff backoff =
        RetryConfigFile.backoff(
            backoffInitial != null ? backoffInitial : d.initialDelay(),
            backoffMax != null ? backoffMax : d.maxDelay(),
            backoffMultiplier != null ? backoffMultiplier : d.multiplier(),
            backoffJitter != null ? backoffJitter : d.jitter(),
            setting -> "--" + setting);
    if (maxAge != null && maxAge.isZero()) {
      throw new IllegalArgumentException("--max-age must be positive but was 0ms");
    }
    b.maxAttempts(attempts).backoff(backoff).maxAge(maxAge);
    if (retryConfig != null) {
      RetryPolicy base = RetryPolicy.of(attempts, backoff);
      RetryConfigFile.read(retryConfig, maxAge == null ? base : base.withMaxAge(maxAge)).apply(b);
    }
  }
}
