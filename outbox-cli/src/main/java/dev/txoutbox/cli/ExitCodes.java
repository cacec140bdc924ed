package dev.txoutbox.cli;

/** The exit codes of {@code txoutbox}, as its README lists them. */
final class ExitCodes {

  /** The command did what was asked. */
  static final int OK = 0;

  /** The command failed: database unreachable, a statement failed, a broker could not be set up. */
  static final int FAILURE = 1;

  /** Bad arguments, or a purge or slot drop without {@code --yes}; nothing was touched. */
  static final int USAGE = 2;

  /** {@code status} found dead letters. */
  static final int DEAD_LETTERS = 3;

  private ExitCodes() {}
}
