package dev.txoutbox.console;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The secret that unlocks the console's actions (requeue, purge), read from a file or an
 * environment variable, never from a command-line value that {@code ps} would show. A client
 * presents it as a bearer token ({@code Authorization: Bearer <secret>}) or as the password of
 * basic auth ({@code curl -u alice:<secret>}, the user name then naming the operator in the audit
 * log). The secret is at least {@value #MIN_LENGTH} characters; surrounding white space (the
 * newline a file ends with) is not part of it.
 *
 * <p>Immutable and thread-safe. {@link #toString()} never shows the secret.
 */
public final class AdminCredential {

  /** The shortest secret accepted: 16 characters. */
  public static final int MIN_LENGTH = 16;

  /** The longest secret accepted: 1,024 characters. */
  public static final int MAX_LENGTH = 1_024;

  private final byte[] secret;
  private final String source;

  private AdminCredential(String secret, String source) {
    this.secret = secret.getBytes(StandardCharsets.UTF_8);
    this.source = source;
  }

  /**
   * The secret in file {@code file} (UTF-8, surrounding white space removed), read once, now.
   *
   * @throws NullPointerException if {@code file} is null
   * @throws IllegalArgumentException if the file cannot be read, or its secret is shorter than
   *     {@value #MIN_LENGTH} or longer than {@value #MAX_LENGTH} characters
   */
  public static AdminCredential fromFile(Path file) {
    Objects.requireNonNull(file, "file");
    String source = "adminCredential file " + file;
    try {
      return of(Files.readString(file, StandardCharsets.UTF_8), source);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          source + " must be a readable file but could not be read: " + e, e);
    }
  }

  /**
   * The secret in environment variable {@code variable}, read once, now.
   *
   * @throws NullPointerException if {@code variable} is null
   * @throws IllegalArgumentException if the variable is not set, or its secret is shorter than
   *     {@value #MIN_LENGTH} or longer than {@value #MAX_LENGTH} characters
   */
  public static AdminCredential fromEnvironment(String variable) {
    return fromEnvironment(variable, System::getenv);
  }

  static AdminCredential fromEnvironment(String variable, UnaryOperator<String> environment) {
    Objects.requireNonNull(variable, "variable");
    String source = "adminCredential environment variable " + variable;
    String value = environment.apply(variable);
    if (value == null) {
      throw new IllegalArgumentException(source + " must be set but is not");
    }
    return of(value, source);
  }

  private static AdminCredential of(String value, String source) {
    String secret = value.strip();
    if (secret.length() < MIN_LENGTH || secret.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          source
              + " must hold a secret of "
              + MIN_LENGTH
              + " to "
              + MAX_LENGTH
              + " characters but held "
              + secret.length());
    }
    return new AdminCredential(secret, source);
  }

  /** Whether {@code presented} is the secret; compared in constant time. */
  boolean matches(String presented) {
    return MessageDigest.isEqual(secret, presented.getBytes(StandardCharsets.UTF_8));
  }

  /** Where the secret came from, without the secret. */
  @Override
  public String toString() {
    return source;
  }
}
