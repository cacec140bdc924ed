package dev.txoutbox.cli;

/** A command failed for a reason its message explains to the user in one line (exit code 1). */
final class CliException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  CliException(String message) {
    super(message);
  }

  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
