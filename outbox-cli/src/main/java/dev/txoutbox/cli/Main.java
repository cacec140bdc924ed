package dev.txoutbox.cli;

/**
 * The {@code txoutbox} command: {@code java -jar txoutbox.jar --help}. Exit codes: 0 done, 1
 * failure, 2 bad arguments (nothing touched), 3 {@code status} found dead letters.
 */
public final class Main {

  private Main() {}

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    JvmShutdown shutdown = new JvmShutdown();
    int code = Cli.run(new CliContext(System.getenv(), System.out, System.err, shutdown), args);
    System.out.flush();
    shutdown.finished(code);
    System.exit(code);
  }
}
