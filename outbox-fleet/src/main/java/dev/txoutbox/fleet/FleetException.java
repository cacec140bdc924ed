package dev.txoutbox.fleet;

import dev.txoutbox.spi.SecretMasking;

/**
 * The control database could not be read or written. The message says what was being done; the
 * cause is the driver's error. Secrets in either are masked.
 */
public final class FleetException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** A failure while doing {@code message}, caused by {@code cause}. */
  public FleetException(String message, Throwable cause) {
    super(SecretMasking.maskText(message + ": " + cause.getMessage()), cause);
  }
}
