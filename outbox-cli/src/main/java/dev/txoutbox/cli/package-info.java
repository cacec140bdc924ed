/**
 * The {@code txoutbox} command line: {@code migrate}, {@code status}, {@code dead-letters}, {@code
 * cleanup} and a standalone {@code relay}. {@link dev.txoutbox.cli.Main} is the entry point; the
 * rest is package-private. Results go to stdout, logs and errors to stderr; exit codes are in
 * {@code ExitCodes}.
 */
package dev.txoutbox.cli;
