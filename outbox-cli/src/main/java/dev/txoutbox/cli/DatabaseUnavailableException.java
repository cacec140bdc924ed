package dev.txoutbox.cli;

/** The database could not be reached; its message is the one line the user sees. */
final class DatabaseUnavailableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  DatabaseUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
