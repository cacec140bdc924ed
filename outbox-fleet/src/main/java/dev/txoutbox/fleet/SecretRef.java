package dev.txoutbox.fleet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where a secret lives, never the secret itself: {@code env:NAME} (an environment variable of the
 * node) or {@code file:/absolute/path} (the first line of a file, as a Kubernetes Secret mounts
 * it). The registry stores only this reference; each node resolves it when it starts a relay, so
 * the control database never holds a password and rotating one is a file or variable change.
 *
 * <p>Immutable and thread-safe.
 */
public final class SecretRef {

  /** Longest reference accepted: 1,024 characters. */
  public static final int MAX_LENGTH = 1024;

  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,254}");

  private final boolean env;
  private final String target;

  private SecretRef(boolean env, String target) {
    this.env = env;
    this.target = target;
  }

  /**
   * Parses {@code env:NAME} or {@code file:/path}.
   *
   * @param field the name of the field being parsed, for the error message
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException naming {@code field} if {@code text} is neither form
   */
  public static SecretRef parse(String field, String text) {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(text, field);
    if (text.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          field + " must be at most " + MAX_LENGTH + " characters but has " + text.length());
    }
    SecretRef ref = parsed(text);
    if (ref == null) {
      throw new IllegalArgumentException(field + " must be " + RULE + " but was " + HIDDEN);
    }
    return ref;
  }

  /** What a reference must be, as an error says it after the field's name and "must be". */
  static final String RULE =
      "a reference to a secret, env:VARIABLE_NAME or file:/absolute/path, not the secret itself";

  /** What an error shows of a value that is not a reference: nothing of it. */
  static final String HIDDEN = "not (value hidden)";

  /** The reference {@code text} writes (at most {@link #MAX_LENGTH} characters), or null. */
  static @Nullable SecretRef parsed(String text) {
    if (text.length() > MAX_LENGTH) {
      return null;
    }
    if (text.startsWith("env:") && ENV_NAME.matcher(text.substring(4)).matches()) {
      return new SecretRef(true, text.substring(4));
    }
    if (text.startsWith("file:/") && text.length() > 6 && text.indexOf('\n') < 0) {
      return new SecretRef(false, text.substring(5));
    }
    return null;
  }

  /** Whether {@code text} looks like a reference ({@code env:} or {@code file:/}). */
  public static boolean isReference(@Nullable String text) {
    return text != null && (text.startsWith("env:") || text.startsWith("file:/"));
  }

  /**
   * The secret.
   *
   * @param environment the node's environment variables ({@code System::getenv} in production)
   * @throws IllegalStateException if the variable is unset or the file unreadable (the message
   *     names the reference, never the secret)
   */
  public String resolve(Function<String, @Nullable String> environment) {
    if (env) {
      String value = environment.apply(target);
      if (value == null) {
        throw new IllegalStateException(
            "secret " + this + " must be set in the node's environment but is not");
      }
      return value;
    }
    try {
      List<String> lines = Files.readAllLines(Path.of(target), StandardCharsets.UTF_8);
      return lines.isEmpty() ? "" : lines.get(0);
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "secret " + this + " must be a readable file but is not: " + e.getClass().getSimpleName(),
          e);
    }
  }

  /** The reference as stored: {@code env:NAME} or {@code file:/path}. Never a secret. */
  @Override
  public String toString() {
    return (env ? "env:" : "file:") + target;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SecretRef r && r.env == env && r.target.equals(target);
  }

  @Override
  public int hashCode() {
    return Objects.hash(env, target);
  }
}
